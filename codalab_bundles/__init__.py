"""Competition bundles for Codabench (and CodaLab v1.5): start, build, validate, replay, migrate, rescore."""
__version__ = "0.4.0"
