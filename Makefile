# Shortcuts for developers; the README's commands are scripts/demo.sh and scripts/test.sh.
.PHONY: demo test bench lint
demo:
	sh scripts/demo.sh
test:
	sh scripts/test.sh
lint:
	sh scripts/setup.sh && .venv/bin/ruff check .
bench:
	sh scripts/setup.sh && .venv/bin/meteors-judge bench sample_videos/clip_000.mp4
