"""rubric-judge: score code patches without running them."""

__version__ = "0.1.0"
