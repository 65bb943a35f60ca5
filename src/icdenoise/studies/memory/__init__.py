"""The memory study: attention and feed-forward weights as linear associative memories (Bietti, 2025 slides)."""
