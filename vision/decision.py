"""One launch's decision: what the streaming judge hands the analysis, kept apart from the stream.

`LaunchJudge` (`vision.pipeline`) gathers a launch's track while it watches; once the meteor is still
or lost it decides the launch from that track, the rig, the calibration of that moment and the
reasons the stream already knows to dispute it. `LaunchDecision` holds exactly those inputs, and
`decide` makes the verdict from them, so a decision can be made again later, with other analysis
code, without watching the video again (`vision.track_cache`, for `meteors-judge eval --tracks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calibration.rig import Rig
from vision.analysis import Analysis, judge_launch
from vision.track import LaunchTrack
from vision.verdict import Verdict


@dataclass(frozen=True)
class LaunchDecision:
    """The inputs of one launch's verdict."""

    track: LaunchTrack
    rig: Rig
    calibration: Any  # `calibration.solve.Calibration`, or a `SimpleCalibration` given directly
    config: Any  # the judge's `JudgeConfig`
    frame_index: int  # the frame the launch is decided at
    disputes: tuple[str, ...] = ()  # why the stream disputes the verdict whatever it says, in order

    def decide(self) -> tuple[Verdict, Analysis]:
        """The verdict (disputed for `disputes` as well) and the analysis behind it."""
        verdict, analysis = judge_launch(self.track, self.rig, self.calibration, self.config, self.frame_index)
        for reason in self.disputes:
            verdict = verdict.with_dispute(reason)
        return verdict, analysis
