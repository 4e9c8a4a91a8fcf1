// The checks of flags, input files and numbers that every stage makes before a model loads
// (the shapes of the tensors in the files: validate.cpp).

#include <cmath>
#include <filesystem>

#include "common/media_io.h"
#include "stages.hpp"
#include "tokenizers/mistral_tokenizer.h"
#include "tokenizers/qwen2_tokenizer.h"

namespace fs = std::filesystem;

namespace stage {

namespace {

std::string kind_noun(const std::string& kind) {
    if (kind == "diffusion") return "a diffusion model (--diffusion-model)";
    if (kind == "llm") return "a text encoder (--llm)";
    if (kind == "vae") return "a VAE (--vae)";
    return "no model sd.cpp recognises";
}

}  // namespace

void check_model(const std::string& path, const std::string& flag, const std::string& kind) {
    if (path.empty()) {
        throw StageError(EXIT_USAGE, "this stage needs " + flag + " FILE");
    }
    std::error_code ec;
    if (!fs::is_regular_file(fs::u8path(path), ec)) {
        throw StageError(EXIT_MODEL_LOAD, flag + " '" + path + "' does not exist or is not a file: fix the path");
    }
    std::string found = sd_stage_probe_model_kind(path.c_str());
    if (found.empty()) {
        throw StageError(EXIT_MODEL_LOAD, flag + " '" + path + "' is not a model file sd.cpp can read " +
                                              "(.gguf / .safetensors / .ckpt): check the file, it may be truncated");
    }
    if (found != kind) {
        throw StageError(EXIT_MODEL_LOAD, flag + " '" + path + "' holds " + kind_noun(found) + ", not " +
                                              kind_noun(kind) + ": pass it with the right flag");
    }
}

void require_flag(const std::string& value, const std::string& flag, const std::string& why) {
    if (value.empty()) {
        throw StageError(EXIT_USAGE, "--stage " + why + " needs " + flag);
    }
}

void check_input_file(const std::string& path, const std::string& flag) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::u8path(path), ec)) {
        throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' does not exist: run the stage that writes it or fix the path");
    }
}

// Creates the output's folder (as sd-cli does for -o); exit 8 when that is impossible.
void check_output_folder(const std::string& path, const std::string& flag) {
    if (planning()) {
        return;  // --plan writes nothing
    }
    fs::path parent = fs::u8path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
        fs::create_directories(parent, ec);
        if (!fs::is_directory(parent, ec)) {
            throw StageError(EXIT_WRITE_FAILED, flag + " '" + path + "': folder '" + parent.string() +
                                                    "' cannot be created: choose a writable folder");
        }
    }
}

const sd::Tensor<float>& find_tensor(const SDStageTensors& tensors, const std::string& name, const std::string& flag,
                                     const std::string& path) {
    for (const auto& [n, t] : tensors) {
        if (n == name) {
            return t;
        }
    }
    throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' has no tensor '" + name + "': pass the file the matching stage wrote");
}

// --plan may run before the stage that writes an input: a missing input file is then planned
// from the flags (native/PROTOCOL.md, "Plan").
bool plan_without(const std::string& path) {
    std::error_code ec;
    return planning() && !path.empty() && !fs::is_regular_file(fs::u8path(path), ec);
}

// Loads images as sd-cli does: the init image is resized to -W/-H when both are given, and
// otherwise sets them; reference images keep their size.
void load_image(Run& run, const std::string& path, const std::string& flag, SDImageOwner& image, bool resize) {
    check_input_file(path, flag);
    int w = 0, h = 0;
    if (resize && run.gen.width_and_height_are_set()) {
        w = run.gen.width;
        h = run.gen.height;
    }
    if (!load_sd_image_from_file(image.put(), path.c_str(), w, h, 3)) {
        throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' is not an image sd-stage can read (PNG, JPEG, BMP)");
    }
    run.gen.set_width_and_height_if_unset(image.get().width, image.get().height);
}

int vae_scale_factor(const Run& run) {
    return run.opt.model_version.rfind("flux2", 0) == 0 ? 16 : 8;
}

// Sets -W/-H from a latent (or checks them against it).
void size_from_latent(Run& run, const sd::Tensor<float>& latent, const std::string& flag, const std::string& path) {
    if (latent.dim() < 2) {
        throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' does not hold an image latent");
    }
    int factor = vae_scale_factor(run);
    int w = static_cast<int>(latent.shape()[0]) * factor, h = static_cast<int>(latent.shape()[1]) * factor;
    if (run.gen.width_and_height_are_set() && (run.gen.width != w || run.gen.height != h)) {
        throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' is a " + std::to_string(w) + "x" + std::to_string(h) +
                                             " latent but -W/-H say " + std::to_string(run.gen.width) + "x" + std::to_string(run.gen.height) +
                                             ": pass the matching size or the matching latent");
    }
    run.gen.width  = w;
    run.gen.height = h;
}

// The file holds exactly one tensor, `name` (a latent or a checkpoint).
void check_only_tensor(const SDStageTensors& tensors, const std::string& name, const std::string& flag, const std::string& path) {
    find_tensor(tensors, name, flag, path);
    if (tensors.size() != 1) {
        throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' holds " + std::to_string(tensors.size()) + " tensors, expected only '" +
                                             name + "' (pass the file the matching stage of this build wrote)");
    }
}

sd::Tensor<float> read_only_tensor(const std::string& path, const std::string& name, const std::string& flag) {
    SDStageTensors tensors = read_tensors(path, flag);
    check_only_tensor(tensors, name, flag, path);
    return find_tensor(tensors, name, flag, path);
}

namespace {
constexpr int MAX_STEPS = 10000;

// The text encoder's window: see check_prompt_length.
constexpr size_t MAX_PROMPT_TOKENS = 512;
constexpr size_t MAX_PROMPT_BYTES  = 64 * 1024;  // far past any 512-token prompt: refused untokenized
}  // namespace

// Numbers sd-cli's own validation lets through (NaN, absurd step counts).
void check_numbers(const Run& run) {
    const auto& sp = run.gen.sample_params;
    if (!std::isfinite(run.gen.strength) || run.gen.strength < 0.f || run.gen.strength > 1.f) {
        throw StageError(EXIT_USAGE, "--strength " + std::to_string(run.gen.strength) + ": use a number in 0..1");
    }
    if (!std::isfinite(sp.guidance.txt_cfg) || sp.guidance.txt_cfg < 0.f || sp.guidance.txt_cfg > 100.f) {
        throw StageError(EXIT_USAGE, "--cfg-scale " + std::to_string(sp.guidance.txt_cfg) + ": use a number in 0..100 (klein: 1)");
    }
    if (sp.sample_steps < 1 || sp.sample_steps > MAX_STEPS) {
        throw StageError(EXIT_USAGE, "--steps " + std::to_string(sp.sample_steps) + ": use 1.." + std::to_string(MAX_STEPS) + " (klein: 4)");
    }
}

// The image size (sd-cli: -W/-H <= 0 mean 512) within what a latent can hold.
void check_size(const Run& run, const std::string& stage) {
    int factor = vae_scale_factor(run);
    int w = run.gen.get_resolved_width(), h = run.gen.get_resolved_height();
    int most = static_cast<int>(MAX_LATENT_SIDE) * factor;
    if (w < factor || h < factor || w > most || h > most) {
        throw StageError(EXIT_USAGE, "--stage " + stage + ": size " + std::to_string(w) + "x" + std::to_string(h) + " (-W/-H): use " +
                                         std::to_string(factor) + ".." + std::to_string(most) + " pixels per side");
    }
}

// The text encoder's window (klein, like diffusers' Flux2KleinPipeline: 512 tokens including the
// chat template). A longer prompt is refused before the model loads: the library would pad to
// the prompt's own length, which runs for minutes at a few thousand tokens and crashes beyond.
void check_prompt_length(const Run& run, const std::string& text, const std::string& flag) {
    const std::string& version = run.opt.model_version;
    if (version != "flux2-klein" && version != "flux2") {
        return;  // other families: the library's own handling
    }
    std::string limit = "the text encoder takes at most " + std::to_string(MAX_PROMPT_TOKENS) + " tokens with its template (about " +
                        std::to_string(MAX_PROMPT_TOKENS * 3 / 4 - 30) + " English words)";
    if (text.size() > MAX_PROMPT_BYTES) {
        throw StageError(EXIT_BAD_INPUT, flag + ": the prompt has " + std::to_string(text.size()) + " bytes; " + limit + ": shorten it");
    }
    if (text.size() + 64 <= MAX_PROMPT_TOKENS) {
        return;  // at most one token per byte (+ the template's): fits without tokenizing
    }
    std::vector<int> tokens;
    if (version == "flux2-klein") {
        Qwen2Tokenizer tokenizer;
        tokens = tokenizer.encode("<|im_start|>user\n" + text + "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
    } else {
        MistralTokenizer tokenizer;
        tokens = tokenizer.encode("[SYSTEM_PROMPT]You are an AI that reasons about image descriptions. You give structured responses "
                                  "focusing on object relationships, object\nattribution and actions without speculation."
                                  "[/SYSTEM_PROMPT][INST]" +
                                  text + "[/INST]");
    }
    if (tokens.size() > MAX_PROMPT_TOKENS) {
        throw StageError(EXIT_BAD_INPUT, flag + ": the prompt is " + std::to_string(tokens.size()) + " tokens with the template; " + limit +
                                             ": shorten it by " + std::to_string(tokens.size() - MAX_PROMPT_TOKENS) + " tokens");
    }
}

}  // namespace stage
