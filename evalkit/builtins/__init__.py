"""Built-in components. Each module is a pluggy plugin registered directly by
:func:`evalkit.registry.build_registry` (entry points are for third parties)."""
