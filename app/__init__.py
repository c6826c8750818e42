"""The composition root: builds the core service and hands it to the GUI, CLI and MCP server."""
