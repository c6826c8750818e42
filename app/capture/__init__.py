"""Live capture of agent transcripts: follow files as they grow (hooks and watchers)."""
