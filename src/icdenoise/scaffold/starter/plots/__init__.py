"""The starter study's drawing."""
