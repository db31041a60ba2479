"""audit: data-quality and contamination auditing for LLM pre-training data."""

__version__ = "0.1.0"

from audit.stages import Stage  # noqa: E402 - the stage protocol of CONTRACT.md, `from audit import Stage`

# The Python API (audit/api.py): audit.run, audit.decide, audit.export, audit.open_run, audit.Run.
# Imported on first use, so that `import audit` (every command's start) stays light.
import sys as _sys  # noqa: E402
import types as _types  # noqa: E402

_API = ("run", "decide", "export", "open_run", "Run")


class _Package(_types.ModuleType):
    """The package, whose `decide` stays the API function although a submodule audit/decide.py
    exists: the import system binds a submodule onto its package when it loads it, and that
    binding is set aside here (the module stays in sys.modules for `from audit.decide import`)."""

    @property
    def decide(self):  # type: ignore[no-untyped-def]
        from audit.api import decide

        return decide

    @decide.setter
    def decide(self, module: object) -> None:
        pass

    def __getattr__(self, name: str) -> object:
        if name in _API:
            from audit import api

            return getattr(api, name)
        raise AttributeError(f"module 'audit' has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *_API})


_sys.modules[__name__].__class__ = _Package
