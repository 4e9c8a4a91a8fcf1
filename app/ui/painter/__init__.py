"""The painter: the canvas view with its tools, the mask and its panel, the context frame and
the canvas expansion."""
