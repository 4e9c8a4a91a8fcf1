"""The queue store (app/pipeline/queue/jobs.py) without the engine: order, pause, inputs by
content hash, the per-job claim, the variations of `queue add`. The database's damage, forged
rows and the import of queue.json: tests/pipeline/test_queue_db.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.errors import DamagedFileError, InputError
from app.core.paths import app_paths
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue.jobs import JobQueue, QueueBusy
from app.pipeline.queue.variations import used_seeds, variations
from app.pipeline.queue.worker import make_run_folder


def _spec(prompt: str = "a red house", seed: int = 7, **kw) -> JobSpec:
    return JobSpec(
        models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt=prompt, seed=seed, **kw
    )


@pytest.fixture()
def queue() -> JobQueue:
    return JobQueue(app_paths())


def test_add_remove_move_pause(queue: JobQueue) -> None:
    a, b, c = queue.add([_spec("a"), _spec("b"), _spec("c")])
    assert [j.id for j in queue.read().jobs] == [a.id, b.id, c.id]
    queue.move(c.id, 0)
    assert [j.spec.prompt for j in queue.read().jobs] == ["c", "a", "b"]
    queue.move(c.id, 99)
    assert [j.spec.prompt for j in queue.read().jobs] == ["a", "b", "c"]
    queue.remove(b.id)
    assert [j.spec.prompt for j in queue.read().jobs] == ["a", "c"]
    with pytest.raises(InputError, match="no job"):
        queue.remove(b.id)
    queue.set_paused(True)
    assert queue.read().paused
    assert queue.claim_next() is None  # paused: a worker takes no job
    queue.set_paused(False)
    claim = queue.claim_next()
    assert claim is not None and claim.job.id == a.id
    claim.release()
    assert [v.state for v in queue.views()[1]] == ["queued", "queued"]


def test_seed_of_minus_one_is_drawn_once_and_recorded(queue: JobQueue) -> None:
    (job,) = queue.add([_spec(seed=-1)])
    assert job.spec.seed >= 0
    assert queue.read().job(job.id).spec.seed == job.spec.seed


def test_inputs_are_stored_by_hash_and_verified(queue: JobQueue, tmp_path: Path) -> None:
    image = tmp_path / "photo.png"
    Image.fromarray(np.full((32, 48, 3), 90, np.uint8)).save(image)  # pictures must decode
    mask = tmp_path / "mask.png"
    Image.fromarray(np.full((32, 48), 255, np.uint8)).save(mask)
    queued = image.read_bytes()
    first, second = queue.add([_spec(image=str(image), mask=str(mask))] * 2)
    assert first.image is not None and first.image == second.image  # one copy per content
    stored = queue.input_path(first.image)
    assert stored.name.startswith(first.image.sha256) and stored.read_bytes() == image.read_bytes()
    image.write_bytes(b"changed after queueing")  # the queue keeps what was queued
    spec = queue.job_spec(first)
    assert Path(spec.image).read_bytes() == queued
    stored.write_bytes(b"damaged")
    with pytest.raises(DamagedFileError, match="changed since it was queued"):
        queue.job_spec(first)
    queue.remove(first.id)
    assert stored.exists()  # still used by the second job
    queue.remove(second.id)
    assert not stored.exists()


def test_a_missing_input_is_refused_at_add(queue: JobQueue, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        queue.add([_spec(image=str(tmp_path / "nope.png"))])
    assert queue.read().jobs == ()


def test_a_claimed_job_is_not_claimed_again_nor_removed(queue: JobQueue) -> None:
    a, b = queue.add([_spec("a"), _spec("b")])
    first = queue.claim_next()
    second = queue.claim_next()  # another worker (another lock) gets the next job
    assert first is not None and second is not None
    assert (first.job.id, second.job.id) == (a.id, b.id)
    assert queue.claim_next() is None
    assert [v.state for v in queue.views()[1]] == ["running", "running"]
    with pytest.raises(QueueBusy, match="is running"):
        queue.remove(a.id)
    first.release()
    again = queue.claim_next()
    assert again is not None and again.job.id == a.id
    again.release()
    second.release()


def test_run_folder_made_in_staging_then_found_again(queue: JobQueue) -> None:
    (job,) = queue.add([_spec("a")])
    made: list[Path] = []

    def create(spec: JobSpec, folder: Path) -> None:
        made.append(folder)
        folder.mkdir(parents=True)
        (folder / "run.json").write_text("{}")

    # A kill while the folder was being made: its staging copy is thrown away, made again.
    leftover = queue.staging_dir_of(job.id)
    leftover.mkdir(parents=True)
    (leftover / "half").write_text("x")
    folder = make_run_folder(queue, job, create)
    assert folder == queue.run_dir_of(job.id) and (folder / "run.json").is_file()
    assert made == [queue.staging_dir_of(job.id)] and not leftover.exists()
    assert not (folder / "half").exists()
    assert make_run_folder(queue, job, create) == folder  # found again: not made twice
    assert len(made) == 1


def test_variations_seeds() -> None:
    spec = _spec(seed=10)
    specs, tags = variations(spec, 3, False, None)
    assert [s.seed for s in specs] == [10, 11, 12]
    assert [t.index for t in tags if t] == [0, 1, 2] and {t.seeds for t in tags if t} == {
        "consecutive"
    }
    specs, tags = variations(spec, 4, True, None)
    seeds = [s.seed for s in specs]
    assert len(set(seeds)) == 4 and all(0 <= s < 2**31 - 1 for s in seeds)
    specs, tags = variations(spec, 2, False, [(1, "one"), (3, "three")])
    assert [(s.prompt, s.seed) for s in specs] == [
        ("one", 10),
        ("one", 11),
        ("three", 10),
        ("three", 11),
    ]
    assert [t.prompt_line for t in tags if t] == [1, 1, 3, 3]
    assert variations(spec, 1, False, None) == ([spec], [None])
    with pytest.raises(InputError, match="--variations 0"):
        variations(spec, 0, False, None)
    specs, _ = variations(_spec(seed=-1), 2, False, None)
    assert specs[0].seed >= 0 and specs[1].seed == specs[0].seed + 1


def test_variations_never_take_a_seed_a_job_of_the_same_settings_has(
    queue: JobQueue, tmp_path: Path
) -> None:
    """Issue 30 (8): a finished job's seed, loaded back into the form, was queued again by
    "Add to queue × 3". The seeds of queued jobs with the same settings are skipped, per
    prompt; other settings, other prompts and other photos keep theirs."""
    photo = tmp_path / "p.png"
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(photo)
    done = _spec(seed=10, image=str(photo))
    queue.add([done, _spec(seed=12, image=str(photo)), _spec(seed=11, steps=9, image=str(photo))])
    jobs = queue.read().jobs
    used = used_seeds(done, jobs)
    assert used == {("a red house", 10), ("a red house", 12)}  # steps 9 is other settings
    specs, _ = variations(done, 3, False, None, used)
    assert [s.seed for s in specs] == [11, 13, 14]
    specs, _ = variations(done, 2, False, [(1, "a red house"), (2, "a blue house")], used)
    assert [(s.prompt, s.seed) for s in specs] == [
        ("a red house", 11),
        ("a red house", 13),
        ("a blue house", 10),
        ("a blue house", 11),
    ]
    other = tmp_path / "q.png"
    Image.fromarray(np.ones((8, 8, 3), np.uint8)).save(other)
    assert used_seeds(_spec(seed=10, image=str(other)), jobs) == set()  # another photo
    same_copy = tmp_path / "copy.png"
    same_copy.write_bytes(photo.read_bytes())  # the same photo by content: the same settings
    assert used_seeds(_spec(seed=3, image=str(same_copy)), jobs) == used
    many = {("a red house", s) for s in range(1000)}
    specs, _ = variations(_spec(seed=5), 50, True, None, many)
    assert not {s.seed for s in specs} & set(range(1000)) and len({s.seed for s in specs}) == 50


def test_a_jobs_photo_name_is_kept_and_titles_its_run(
    queue: JobQueue,
    tmp_path: Path,
    tiny_models,
) -> None:
    """The GUI queues a copy of the picture (its name says nothing); the name the user knows it
    by is kept in the queue and recorded in the job's run, as `run` records it."""
    from app.pipeline.control import RunControl
    from app.pipeline.queue.worker import run_claimed_job
    from app.pipeline.runner import Pipeline

    image = tmp_path / "0123abcd.png"  # the inputs' copy
    Image.fromarray(np.full((32, 48, 3), 90, np.uint8)).save(image)
    models = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    job_spec = JobSpec(models=models, prompt="a red house", image=str(image))
    (job,) = queue.add([job_spec], photo_name="holiday 海边.jpg")
    (text_job,) = queue.add([_spec()], photo_name="ignored.png")  # no picture: no name
    again = {j.id: j for j in JobQueue(app_paths()).read().jobs}  # read back from queue.db
    assert again[job.id].photo_name == "holiday 海边.jpg"
    assert again[text_job.id].photo_name is None
    pipeline = Pipeline(app_paths(), engine=tmp_path / "no-engine", cache_limit_mb=16)
    claim = queue.claim_next()
    assert claim is not None and claim.job.id == job.id
    with claim:
        run_claimed_job(pipeline, queue, claim.job, RunControl(), None)  # fails: no engine
    assert pipeline.snapshot(queue.run_dir_of(job.id)).photo_name == "holiday 海边.jpg"
