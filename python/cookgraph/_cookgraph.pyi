"""Type stubs of cookgraph._cookgraph, the C++ half of the package (python/*.cc).

Use the package `cookgraph`; these functions return plain columns and dicts
that cookgraph/__init__.py turns into pandas objects.
"""

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

Columns = Dict[str, Union[np.ndarray, List[Any]]]
# Paths are taken as bytes (os.fsencode; a str is taken as UTF-8) and given
# back as bytes (expand_inputs) or as str decoded as os.fsdecode decodes.
Path = Union[bytes, str]
ErrorDict = Dict[str, Any]  # file, line, column, where, message, error (and internal)
WarningDict = Dict[str, str]  # file, message

class Error(Exception):
    file: str
    line: Optional[int]
    column: Optional[int]
    where: str
    message: str

class InputError(Error): ...
class LlmError(Error): ...

class Snapshot:
    @property
    def file(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    def info(self) -> Dict[str, Any]: ...
    def nodes(self, sort: str = ..., top: Optional[int] = ...,
              group_by: Optional[str] = ...) -> Columns: ...
    def frames(self) -> Dict[str, np.ndarray]: ...
    def series(self, node_id: str, metric: str = ...) -> np.ndarray: ...
    def score_json(self) -> str: ...
    def findings(self, pack: Path = ...) -> List[Dict[str, Any]]: ...
    def timeline(self, step: Optional[int] = ...) -> Dict[str, List[Any]]: ...
    def launches(self) -> Dict[str, List[Any]]: ...
    def critical_path_events(self, step: Optional[int] = ...) -> Dict[str, List[Any]]: ...
    def prompt(self, question: str, *, persona: Optional[str] = ..., model: Optional[str] = ...,
               budget_tokens: Optional[int] = ..., tokenizer: Optional[Path] = ...,
               pack: Optional[Path] = ..., stream: Optional[bool] = ...) -> str: ...
    def ask(self, question: str, *, on_token: Optional[Callable[[str], Any]] = ...,
            base_url: Optional[str] = ..., model: Optional[str] = ...,
            persona: Optional[str] = ..., budget_tokens: Optional[int] = ...,
            tokenizer: Optional[Path] = ..., pack: Optional[Path] = ...,
            stream: Optional[bool] = ...) -> Dict[str, Any]: ...

def load(paths: Sequence[Path], *, budget_ms: Optional[float] = ...,
         frame_marker: Optional[str] = ..., format_in: Optional[str] = ...,
         limits: Optional[Mapping[str, Any]] = ...) -> Snapshot: ...
def expand_inputs(
        paths: Sequence[Path]) -> Tuple[List[List[bytes]], List[ErrorDict], List[WarningDict]]: ...
def score_inputs(inputs: Sequence[Sequence[Path]], *, jobs: Optional[int] = ...,
                 stop_at_error: bool = ..., budget_ms: Optional[float] = ...,
                 frame_marker: Optional[str] = ..., format_in: Optional[str] = ...,
                 limits: Optional[Mapping[str, Any]] = ..., sort: str = ...,
                 top: Optional[int] = ..., group_by: Optional[str] = ...,
                 baseline: Optional[Path] = ...
                 ) -> Tuple[Columns, List[ErrorDict], List[WarningDict]]: ...
def diff(before: Union[Path, Snapshot], after: Union[Path, Snapshot], *,
         alpha: Optional[float] = ..., min_change: Optional[float] = ...,
         frame_marker: Optional[str] = ..., format_in: Optional[str] = ...,
         limits: Optional[Mapping[str, Any]] = ...) -> Tuple[Columns, str, List[WarningDict]]: ...
