"""Settings: the store and its key (rotation with progress), the memory policy, the search
index (embedder choice and rebuild), backup and transfer (export and import of memories)
and the language (R7-R11, R14, R24). One module per panel; `view` assembles them."""

from ui.views.settings.view import SettingsView

__all__ = ["SettingsView"]
