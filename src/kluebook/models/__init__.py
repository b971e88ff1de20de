"""Task-specific model architectures that transformers does not ship."""
