"""Write a generated set's README.md (sample_videos/, tests/narrow_clips/) from its labels and index."""

from __future__ import annotations

import json
from pathlib import Path

from calibration.truth import load_label

CASE_TEXT = {
    "hit": "valid hit of a dinosaur space",
    "water": "valid landing in water",
    "outside": "misses the box, rests on the table",
    "rim": "comes to rest on the box rim (counts as outside)",
    "direct": "enters the box with no table bounce (void)",
    "two_bounce": "two table bounces, then a dinosaur space",
    "three_bounce": "three or more table bounces, then the box",
    "hard_ok": "hard Velociraptor launch with 2+ table bounces (valid)",
    "hard_one": "hard Velociraptor launch with only 1 table bounce (void)",
    "over_line": "released over the herd line (void)",
    "close_ok": "close call: released 0–20 mm behind the herd line (valid)",
    "close_foul": "close call: released 0–20 mm over the herd line (void)",
    "bounce_out": "enters the box and bounces out again",
    "lost": "rolls out of the camera's view (rest null)",
}


WORLD_TEXT = {
    "narrow": """The narrow world (`--world narrow`): each clip has ~0.5–1 s of empty, still table (for
calibration), then the launcher's hand enters, holds, throws and withdraws; the meteor (a saturated
colour) flies, bounces, and rests (≥ 0.5 s of stillness at the end) or rolls out of view. Rendered by
`footage/` from a 1 ms rigid-sphere simulation (restitution, friction, spin, rolling resistance; box
walls, rim, floor and low partitions), through the labelled pinhole camera (0.9–1.6 m high, ≤ 15°
tilt, some with lens distortion k1), one lamp, motion blur from averaged sub-frames, shadows,
exposure/white-balance drift, sensor noise and mp4v encoding.""",
    "wide": """The wide world (the default): meteors of every colour (white, greys, near-black, brown,
beige, saturated, the table's, the skin's or the sleeve's hue), matt or glossy, plain, striped,
spotted, two-tone, speckled, irregular or slightly ellipsoid, 18–28 mm; wood, cloth, felt,
patterned cloth, play mats and laminate with a lamp's sheen, cards, paper, coins, dice and pencils
lying about; light to dark skin, sleeves of any colour and length, right and left hands, both hands
(Stegosaurus), three fingers (Triceratops), the launch modes' motions (elbow on the table, above the
head, hands on the chest, a downward flick, a long push) with a follow-through and the arm's shadow;
clips that start on an empty table, with the meteor already in the hand, thrown within 0.3 s of the
first frame, or picked out of the box and carried over the table; box markers on the rim or the floor
insert, some too small to read; a box bumped before the launch or tapped left and right during a
hard-mode T-Rex launch (its label adds `box_track`, where the box stood frame by frame); one to
three lamps, hard or soft, warm or cold, drifting exposure and white balance; cameras 0.8–1.8 m
high, tilted up to 20°, with radial distortion (k1, k2); 640×480, 1280×720 and 1920×1080 at 30 and
60 fps, any shutter time, H.264 at CRF 18–30. The physics is the 1 ms rigid-sphere simulation (spin,
skids, rolling, hops, rim hits, bounce-outs; a moving box carries and pushes the meteor).""",
}


def _look(clip: dict) -> str:
    """The wide world's draw for a clip: its start, motion, hand, lamps and objects."""
    if clip.get("world") != "wide":
        return ""
    return (f"; {clip['start']}, {clip['motion']}, {clip['hand']} hand, {clip['lamps']} lamp(s), "
            f"{clip['objects']} object(s){', small box markers' if clip['small_box_markers'] else ''}"
            f"{_box_motion(clip)}, crf {clip['crf']}")


def _box_motion(clip: dict) -> str:
    motion = clip.get("box_motion", "still")
    return "" if motion == "still" else f", box {motion}"


HEADER = (
    "| clip | shows | size@fps | mode | release | h | herd | bbb | bounces | entered | rest | region | valid "
    "| outcome | scene |\n" + "| --- " * 15 + "|"
)


def write_readme(folder: str | Path, command: str) -> Path:
    folder = Path(folder)
    index = json.loads((folder / "index.json").read_text())
    rows = []
    total = 0
    for clip in index["clips"]:
        label = load_label(folder / clip["label"])
        size = (folder / clip["video"]).stat().st_size
        total += size
        bounces = ", ".join(f"{b.surface}@{b.frame}" for b in label.bounces) or "–"
        rest = f"{label.rest.frame}" if label.rest else "null (left view)"
        w, h = label.frame_size
        rows.append(
            f"| {clip['video']} | {CASE_TEXT.get(clip['case'], clip['case'])} | {w}×{h}@{label.fps:g} | "
            f"{label.launch_mode} | {label.release.frame} | {label.release.height_mm:.0f} | "
            f"{label.release.herd_line_signed_mm:+.1f} | {label.bounces_before_box} | {bounces} | "
            f"{label.entered_box_frame if label.entered_box_frame is not None else '–'} | {rest} | {label.region} | "
            f"{'yes' if label.valid else 'no'} | {label.outcome} | {clip['layout']}, {clip['table']}, "
            f"{clip.get('meteor_kind', '')} {clip['meteor_style']} {label.scene.meteor.diameter_mm:g} mm"
            f"{', k1=' + format(clip['k1'], '.3f') if clip['k1'] else ''}{_look(clip)} |"
        )
    world = index.get("world", "narrow")
    title = "Sample launch clips" if world == "wide" else "Launch clips of the narrow world (regression tests)"
    demo = ("clip_000 is the default demo/bench clip: a typical valid 1280×720@60 dinosaur hit."
            if world == "wide" else "The tests of the judge's behaviour on particular clips use this set.")
    text = f"""# {title}

{len(rows)} synthetic overhead launch clips with exact ground truth, one label per clip in the
`meteors-launch-truth/1` format (`shared/spec/launch-truth.md`): `clip_NNN.mp4` + `clip_NNN.json`,
and `index.json` listing them. {total / 1e6:.1f} MB of video in all.

Regenerate exactly this set (labels are byte-identical for a seed):

```
{command}
```

{WORLD_TEXT[world]}
`release.height_mm` is the height of the meteor's centre. Check any clip by eye with
`meteors-judge samples sheet CLIP.mp4 --out sheet.png`, and the whole set with
`meteors-judge samples gallery FOLDER --out gallery.png`.

{demo}

Columns: release frame, release height (mm), herd-line signed distance (mm, + = launcher's side),
table bounces before the box (bbb), every bounce (surface@frame), frame of box entry, rest frame.

{HEADER}
""" + "\n".join(rows) + "\n"
    out = folder / "README.md"
    out.write_text(text, encoding="utf-8")
    return out


if __name__ == "__main__":  # pragma: no cover
    import sys

    default = "meteors-judge samples generate --out sample_videos --n 36 --seed 0"
    write_readme(sys.argv[1], " ".join(sys.argv[2:]) or default)
