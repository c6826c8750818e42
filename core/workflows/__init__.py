"""Multi-step operations over governance and retrieval: writes, deletion, replay."""
