"""Agent hooks: the Claude Code hook adapter, its installer, and the local hook daemon."""
