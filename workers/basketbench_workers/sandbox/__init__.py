"""The sandbox every execution of commit-derived code goes through (docs/security.md)."""

from basketbench_workers.sandbox.core import Launcher, Sandbox, SandboxUnavailable
from basketbench_workers.sandbox.policy import Limits, Policy

__all__ = ["Launcher", "Limits", "Policy", "Sandbox", "SandboxUnavailable"]
