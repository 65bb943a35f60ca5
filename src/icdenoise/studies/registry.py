"""Every registered study, by name. A new study adds its `Study` here."""

from __future__ import annotations

from . import Study
from .alltoken.study import STUDY as ALLTOKEN
from .memory.study import STUDY as MEMORY
from .mssa.study import STUDY as MSSA
from .onelayer.study import STUDY as ONELAYER

STUDIES: dict[str, Study] = {study.name: study for study in (ONELAYER, ALLTOKEN, MSSA, MEMORY)}
