"""SQLAlchemy 2 ORM models; importing this package registers every table."""

from basketbench.models.ab import AbEffect, AbRun
from basketbench.models.ab_request import AbRequest
from basketbench.models.advice import AdviceRun
from basketbench.models.arena import ArenaResult, ArenaRun
from basketbench.models.base import Base
from basketbench.models.branch_size import BranchSize
from basketbench.models.change import Change, NotificationDelivery, PendingDetection
from basketbench.models.codecs import CodecSet
from basketbench.models.commit import Commit, Repository
from basketbench.models.experiment import Configuration, Dataset
from basketbench.models.lossy import LossyResult, LossySweep
from basketbench.models.machine import Machine
from basketbench.models.ops import ApiToken, WebhookDelivery
from basketbench.models.result import Build, Result, ResultDocument
from basketbench.models.run import Run, RunDispatch
from basketbench.models.screen import ScreenPoints
from basketbench.models.worker import WorkerTag

__all__ = [
    "AbEffect", "AbRequest", "AbRun", "AdviceRun", "ApiToken", "ArenaResult", "ArenaRun", "Base",
    "BranchSize", "Build", "Change",
    "CodecSet",
    "Commit",
    "Configuration", "Dataset", "LossyResult", "LossySweep", "Machine",
    "NotificationDelivery", "PendingDetection",
    "Repository", "Result", "ResultDocument", "Run", "RunDispatch", "ScreenPoints",
    "WebhookDelivery",
    "WorkerTag",
]
