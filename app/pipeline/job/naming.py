"""How an error names a parameter: in words and by its flag ("VAE (--vae)", "cfg scale
(--cfg-scale)"), never by its settings key ("vae_model"); `param` carries that key, by which
the GUI puts its own words in (ui/words/texts.window_values)."""

from __future__ import annotations

from app.pipeline.job import params as P

MODEL_KINDS = {"diffusion_model": "diffusion", "llm_model": "llm", "vae_model": "vae"}
KIND_NAMES = {"diffusion": "FLUX.2 diffusion model", "llm": "text encoder", "vae": "VAE"}
# Rows whose key read as words would still not say what they are.
_WORDS = {P.LORA_DIR.name: "LoRA folder", P.THREADS.name: "CPU threads"}


def flag_of(p: P.Param) -> str:
    return p.flags[0] if p.flags else p.name


def words_of(p: P.Param) -> str:
    """The parameter in English words (the CLI's and the log's)."""
    kind = MODEL_KINDS.get(p.name)
    if kind is not None:
        return KIND_NAMES[kind]
    return _WORDS.get(p.name, p.name.replace("_", " "))


def named(p: P.Param) -> dict[str, str]:
    """The values an error template names a parameter by: {name} reads "VAE (--vae)"."""
    flag = flag_of(p)
    return {"name": f"{words_of(p)} ({flag})", "param": p.name, "flag": flag}
