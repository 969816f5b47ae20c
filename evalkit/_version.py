"""evalkit's version (kept in one leaf module so that nothing has to import the
package's ``__init__`` to read it)."""

__version__ = "0.1.0"
