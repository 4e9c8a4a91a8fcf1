"""Prepare: the options that prepare the image for inference, the controller that applies
them and the preview of what the model sees."""
