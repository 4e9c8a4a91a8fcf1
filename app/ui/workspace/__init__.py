"""The canvas as the workspace: generated pictures over the photo, their history, saving."""
