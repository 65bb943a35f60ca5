"""The example study's drawing."""
