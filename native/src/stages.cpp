// The four stages: vae-encode, llm-encode, diffuse, vae-decode (native/PROTOCOL.md).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/media_io.h"
#include "ggml.h"
#include "tokenizers/mistral_tokenizer.h"
#include "tokenizers/qwen2_tokenizer.h"
#include "sd_stage.hpp"
#include "sd_stage_version.h"


namespace fs = std::filesystem;
using nlohmann::json;

namespace stage {
namespace {

constexpr int METADATA_FORMAT = 1;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- library log ------------------------------------------------------------------------------

struct LogState {
    bool verbose = false;
    std::mutex mutex;
    bool saw_alloc_failure = false;
};
LogState g_log;

void library_log(enum sd_log_level_t level, const char* text, void*) {
    std::string line = text;
    if (level == SD_LOG_ERROR || level == SD_LOG_WARN) {
        std::lock_guard<std::mutex> lock(g_log.mutex);
        if (line.find("alloc") != std::string::npos && line.find("fail") != std::string::npos) {
            g_log.saw_alloc_failure = true;
        }
        if (line.find("out of memory") != std::string::npos || line.find("OutOfDeviceMemory") != std::string::npos ||
            line.find("OutOfHostMemory") != std::string::npos) {
            g_log.saw_alloc_failure = true;
        }
    }
    if ((level == SD_LOG_DEBUG || (level == SD_LOG_INFO && planning())) && !g_log.verbose) {
        return;  // --plan: the loader's "unknown tensor" lines (it is handed no tensors) are noise
    }
    static const char* tags[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    std::fprintf(stderr, "[%-5s] %s", tags[level], text);
    if (line.empty() || line.back() != '\n') {
        std::fputc('\n', stderr);
    }
}

Events* g_events = nullptr;

// ggml aborts on some failed allocations (a null buffer it then asserts on): after the log
// reported an allocation failure, that abort ends the stage as out of memory (exit 4).
void on_ggml_abort(const char* message) {
    std::fprintf(stderr, "%s\n", message);
    bool oom = false;
    {
        std::lock_guard<std::mutex> lock(g_log.mutex);
        oom = g_log.saw_alloc_failure;
    }
    if (oom) {
        std::string text = std::string("out of memory: an allocation failed and ggml stopped (") + message +
                           "); try a smaller size, --diffusion-fa, --vae-tiling, --params-backend cpu or the CPU";
        if (g_events != nullptr) {
            g_events->emit("error", {{"code", EXIT_OUT_OF_MEMORY}, {"message", text}});
        }
        std::fprintf(stderr, "sd-stage: error: %s\n", text.c_str());
        std::fflush(stderr);
        std::_Exit(EXIT_OUT_OF_MEMORY);
    }
}

// A failure of the library: out of memory when the log said so, else `fallback`.
[[noreturn]] void library_failure(ExitCode fallback, const std::string& message) {
    if (g_log.saw_alloc_failure) {
        throw StageError(EXIT_OUT_OF_MEMORY, message + ": out of memory (see the log; try a smaller size, " +
                                                 "--params-backend cpu, --max-vram or --vae-tiling)");
    }
    throw StageError(fallback, message);
}

// ---- checks -----------------------------------------------------------------------------------

std::string kind_noun(const std::string& kind) {
    if (kind == "diffusion") return "a diffusion model (--diffusion-model)";
    if (kind == "llm") return "a text encoder (--llm)";
    if (kind == "vae") return "a VAE (--vae)";
    return "no model sd.cpp recognises";
}

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

// Test hooks (native/PROTOCOL.md, "Test hooks"): an injected failure that looks exactly like a
// real out-of-memory (the log line, the exit code and the error event).
[[noreturn]] void injected_out_of_memory(const char* hook, const std::string& message) {
    std::fprintf(stderr, "[ERROR] ggml_backend_buffer_type_alloc_buffer: failed to allocate buffer (injected by %s)\n", hook);
    {
        std::lock_guard<std::mutex> lock(g_log.mutex);
        g_log.saw_alloc_failure = true;
    }
    library_failure(EXIT_INTERNAL, message);
}

// ---- devices ----------------------------------------------------------------------------------

std::map<std::string, std::string> parse_backend_map(const std::string& spec) {
    std::map<std::string, std::string> map;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) {
            continue;
        }
        auto eq = item.find('=');
        if (eq == std::string::npos) {
            throw StageError(EXIT_USAGE, "--backend '" + spec + "': expected module=device pairs like te=cpu,diffusion=vulkan0,vae=vulkan0");
        }
        std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        for (auto& c : value) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (key != "te" && key != "diffusion" && key != "vae") {
            throw StageError(EXIT_USAGE, "--backend: unknown module '" + key + "' (use te, diffusion, vae)");
        }
        map[key] = value;
    }
    return map;
}

// Maps the newer build's per-module device choice onto 596's mechanisms for the one module this
// stage loads: SD_VK_DEVICE picks the main backend; the text encoder and VAE can stay on the CPU.
// Returns the device name the module runs on.
std::string apply_backend(Run& run, const std::string& module) {
    auto map           = parse_backend_map(run.opt.backend);
    std::string device = map.count(module) ? map[module] : "";
    if (!run.opt.params_backend.empty() && run.opt.params_backend != "cpu") {
        throw StageError(EXIT_USAGE, "--params-backend '" + run.opt.params_backend + "': this build keeps weights either on the compute device or in RAM (cpu)");
    }
    if (run.opt.params_backend == "cpu") {
        run.ctx.offload_params_to_cpu = true;
    }
    if (device.empty() || device == "auto") {
        if (module == "te" && run.ctx.clip_on_cpu) return "CPU";
        if (module == "vae" && run.ctx.vae_on_cpu) return "CPU";
        return default_device();
    }
    if (device == "cpu") {
        if (module == "te") {
            run.ctx.clip_on_cpu = true;
            return "CPU";
        }
        if (module == "vae") {
            run.ctx.vae_on_cpu = true;
            return "CPU";
        }
        if (default_device() != "CPU") {
            throw StageError(EXIT_USAGE, "--backend diffusion=cpu: stable-diffusion.cpp 596 cannot keep the diffusion model on the CPU " +
                                             std::string("when a GPU is present; use diffusion=vulkanN or --params-backend cpu"));
        }
        return "CPU";
    }
    if (device.rfind("vulkan", 0) == 0) {
        std::string index = device.substr(6);
        std::string name  = "Vulkan" + index;
        bool found        = false;
        for (const auto& dev : list_devices(false)) {
            found = found || dev["name"] == name;
        }
        if (index.empty() || !found) {
            throw StageError(EXIT_USAGE, "--backend " + module + "=" + device + ": no such device (devices: " + list_devices(false).dump() +
                                             "; a CPU Vulkan driver such as lavapipe is listed only with GGML_VK_VISIBLE_DEVICES=0)");
        }
#ifdef _WIN32
        _putenv_s("SD_VK_DEVICE", index.c_str());
#else
        setenv("SD_VK_DEVICE", index.c_str(), 1);
#endif
        if (module == "te") run.ctx.clip_on_cpu = false;
        if (module == "vae") run.ctx.vae_on_cpu = false;
        return name;
    }
    throw StageError(EXIT_USAGE, "--backend " + module + "=" + device + ": this build knows cpu and vulkanN only");
}

// ---- context ----------------------------------------------------------------------------------

SDCtxPtr load_context(Run& run, int modules, const std::string& model_key, const std::string& path,
                     const std::string& device, bool vae_decode_only) {
    auto t0                       = std::chrono::steady_clock::now();
    sd_ctx_params_t params        = run.ctx.to_sd_ctx_params_t(vae_decode_only, true, false);
    SDCtxPtr ctx;
    {
        Control::Busy busy(run.control);  // a stop request during the load exits at once
        ctx.reset(sd_stage_new_ctx(&params, modules, run.opt.model_version.c_str()));
    }
    run.control.gate();
    if (!ctx) {
        library_failure(EXIT_MODEL_LOAD, "loading '" + path + "' failed (see the log above): check that it is a FLUX.2 [klein] " +
                                             model_key + " model and not truncated");
    }
    run.events.emit("load", {{"model", model_key}, {"path", path}, {"device", device}, {"seconds", seconds_since(t0)},
                             {"version", sd_stage_version_name(ctx.get())}});
    return ctx;
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

constexpr int MAX_STEPS = 10000;

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
constexpr size_t MAX_PROMPT_TOKENS = 512;
constexpr size_t MAX_PROMPT_BYTES  = 64 * 1024;  // far past any 512-token prompt: refused untokenized

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

void emit_hello(Run& run, const std::string& device) {
    run.events.emit("hello", {{"version", SD_STAGE_VERSION_STRING},
                              {"pin", SD_STAGE_PIN_STRING},
                              {"stage", run.opt.stage},
                              {"devices", list_devices(false)},
                              {"device", device}});
}

// ---- stages -----------------------------------------------------------------------------------

ExitCode run_vae_encode(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    check_model(run.ctx.vae_path, "--vae", "vae");
    if (run.gen.init_image_path.empty() && run.gen.ref_image_paths.empty()) {
        throw StageError(EXIT_USAGE, "--stage vae-encode needs -i IMAGE and/or -r REF");
    }
    if (!run.gen.init_image_path.empty()) {
        require_flag(run.opt.save_latent, "--save-latent FILE (the init latent)", "vae-encode with -i");
        check_output_folder(run.opt.save_latent, "--save-latent");
    }
    if (!run.gen.ref_image_paths.empty()) {
        require_flag(run.opt.save_ref_latents, "--save-ref-latents FILE", "vae-encode with -r");
        check_output_folder(run.opt.save_ref_latents, "--save-ref-latents");
    }
    std::string device = apply_backend(run, "vae");
    emit_hello(run, device);

    if (!run.gen.init_image_path.empty()) {
        load_image(run, run.gen.init_image_path, "-i", run.gen.init_image, true);
    }
    run.gen.ref_images.clear();
    for (const auto& path : run.gen.ref_image_paths) {
        SDImageOwner ref({0, 0, 3, nullptr});
        load_image(run, path, "-r", ref, false);
        int most = static_cast<int>(MAX_LATENT_SIDE) * vae_scale_factor(run);
        if (ref.get().width < vae_scale_factor(run) || ref.get().height < vae_scale_factor(run) || ref.get().width > most ||
            ref.get().height > most) {
            throw StageError(EXIT_BAD_INPUT, "-r '" + path + "' is " + std::to_string(ref.get().width) + "x" +
                                                 std::to_string(ref.get().height) + " pixels: use 16.." + std::to_string(most) + " per side");
        }
        run.gen.ref_images.push_back(std::move(ref));
    }
    if (!run.gen.init_image_path.empty()) {
        check_size(run, "vae-encode");
    }
    SDCtxPtr context = load_context(run, SD_STAGE_MODULE_VAE, "vae", run.ctx.vae_path, device, false);
    sd_img_gen_params_t params = run.gen.to_sd_img_gen_params_t();
    sd::Tensor<float> init_latent;
    std::vector<sd::Tensor<float>> ref_latents;
    bool encoded = false;
    {
        Control::Busy busy(run.control);
        encoded = sd_stage_encode_latents(context.get(), &params, &init_latent, &ref_latents);
    }
    run.control.gate();
    if (!encoded) {
        library_failure(EXIT_INTERNAL, "VAE encoding failed (see the log above)");
    }
    if (planning()) {
        return finish_plan(run, {{"images", (run.gen.init_image_path.empty() ? 0 : 1) + static_cast<int>(run.gen.ref_images.size())}});
    }
    json outputs = json::object();
    if (!init_latent.empty()) {
        write_tensors(run.opt.save_latent, {{"latent", init_latent}});
        outputs["init_latent"] = run.opt.save_latent;
    }
    if (!ref_latents.empty()) {
        SDStageTensors refs;
        for (size_t i = 0; i < ref_latents.size(); i++) {
            refs.emplace_back("ref_" + std::to_string(i), ref_latents[i]);
        }
        write_tensors(run.opt.save_ref_latents, refs);
        outputs["ref_latents"] = run.opt.save_ref_latents;
    }
    run.events.emit("done", {{"seconds", seconds_since(t0)}, {"outputs", outputs}});
    return EXIT_OK;
}

ExitCode run_llm_encode(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    check_model(run.ctx.llm_path, "--llm", "llm");
    require_flag(run.opt.save_embeddings, "--save-embeddings FILE", "llm-encode");
    check_output_folder(run.opt.save_embeddings, "--save-embeddings");
    check_prompt_length(run, run.gen.prompt, "-p");
    if (run.gen.sample_params.guidance.txt_cfg != 1.f) {
        check_prompt_length(run, run.gen.negative_prompt, "-n");
    }
    std::string device = apply_backend(run, "te");
    emit_hello(run, device);
    SDCtxPtr context = load_context(run, SD_STAGE_MODULE_LLM, "llm", run.ctx.llm_path, device, true);
    sd_img_gen_params_t params = run.gen.to_sd_img_gen_params_t();
    SDStageTensors condition;
    bool encoded = false;
    {
        Control::Busy busy(run.control);
        encoded = sd_stage_encode_condition(context.get(), &params, &condition);
    }
    run.control.gate();
    if (!encoded) {
        library_failure(EXIT_INTERNAL, "text encoding failed (see the log above)");
    }
    if (planning()) {
        return finish_plan(run);
    }
    write_tensors(run.opt.save_embeddings, condition);
    run.events.emit("done", {{"seconds", seconds_since(t0)}, {"outputs", {{"embeddings", run.opt.save_embeddings}}}});
    return EXIT_OK;
}

ExitCode run_vae_decode(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    check_model(run.ctx.vae_path, "--vae", "vae");
    require_flag(run.opt.load_latent, "--load-latent FILE", "vae-decode");
    check_output_folder(run.opt.output, "-o");
    SDStageTensors tensors;
    if (plan_without(run.opt.load_latent)) {
        tensors = {{"latent", plan_latent(run, "vae-decode")}};
    } else {
        check_input_file(run.opt.load_latent, "--load-latent");
        tensors = read_tensors(run.opt.load_latent, "--load-latent");
    }
    check_only_tensor(tensors, "latent", "--load-latent", run.opt.load_latent);
    const sd::Tensor<float>& latent = find_tensor(tensors, "latent", "--load-latent", run.opt.load_latent);
    check_latent("--load-latent", run.opt.load_latent, "latent", latent, -1, -1);
    size_from_latent(run, latent, "--load-latent", run.opt.load_latent);
    std::string device = apply_backend(run, "vae");
    emit_hello(run, device);
    SDCtxPtr context           = load_context(run, SD_STAGE_MODULE_VAE, "vae", run.ctx.vae_path, device, true);
    const char* oom_decode     = std::getenv("SD_STAGE_TEST_OOM_DECODE");
    if (!planning() && oom_decode != nullptr && std::string(oom_decode) == "1" && !run.gen.vae_tiling_params.enabled) {
        injected_out_of_memory("SD_STAGE_TEST_OOM_DECODE", "VAE decoding failed (see the log above)");
    }
    sd_img_gen_params_t params = run.gen.to_sd_img_gen_params_t();
    sd_image_t image           = {0, 0, 0, nullptr};
    bool decoded               = false;
    {
        Control::Busy busy(run.control);
        decoded = sd_stage_decode(context.get(), &params, latent, &image);
    }
    SDImageOwner owner(image);
    run.control.gate();
    if (!decoded) {
        library_failure(EXIT_INTERNAL, "VAE decoding failed (see the log above)");
    }
    if (planning()) {
        return finish_plan(run);
    }
    auto png = encode_image_to_vector(EncodedImageFormat::PNG, image.data, image.width, image.height, image.channel);
    if (png.empty()) {
        throw StageError(EXIT_INTERNAL, "PNG encoding failed (a bug: please report it with the log)");
    }
    write_file_atomic(run.opt.output, png.data(), png.size());
    run.events.emit("done", {{"seconds", seconds_since(t0)}, {"outputs", {{"image", run.opt.output}}}});
    return EXIT_OK;
}

// ---- diffuse ----------------------------------------------------------------------------------

std::string step_file_name(int step) {
    char name[32];
    std::snprintf(name, sizeof(name), "step_%03d.bin", step);
    return name;
}

std::string preview_file_name(int step) {
    char name[32];
    std::snprintf(name, sizeof(name), "preview_%03d.png", step);
    return name;
}

// ---- x0 latents: each step's x0 prediction for previews decoded by another process ----------

constexpr int X0_KEEP = 4;  // the newest files kept: a decoder reading an older one still finds it

std::string x0_file_name(int step) {
    char name[32];
    std::snprintf(name, sizeof(name), "x0_%03d.bin", step);
    return name;
}

// The step of an x0_NNN.bin name, or -1.
int x0_file_step(const std::string& name) {
    const size_t prefix = 3, suffix = 4;  // "x0_", ".bin"
    if (name.size() <= prefix + suffix || name.size() > prefix + suffix + 6 || name.compare(0, prefix, "x0_") != 0 ||
        name.compare(name.size() - suffix, suffix, ".bin") != 0) {
        return -1;
    }
    std::string digits = name.substr(prefix, name.size() - prefix - suffix);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return -1;
    }
    return std::stoi(digits);
}

// Writes DIR/x0_NNN.bin (tensor `latent`, atomically), removes the x0 files outside the newest
// X0_KEEP steps (also a previous process's later steps, so the newest file is always this run's)
// and emits `x0`. A preview must never stop sampling: a failure is logged once and skipped.
void write_x0_latent(Run& run, const fs::path& dir, int step, const sd::Tensor<float>& denoised, bool& warned) {
    std::string path = (dir / x0_file_name(step)).string();
    try {
        write_tensors(path, {{"latent", denoised}});
    } catch (const StageError& e) {
        if (!warned) {
            std::fprintf(stderr, "[WARN ] x0 latent not written (previews skip it): %s\n", e.what());
            warned = true;
        }
        return;
    }
    std::vector<fs::path> stale;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        int other = x0_file_step(it->path().filename().string());
        if (other >= 0 && (other > step || other <= step - X0_KEEP)) {
            stale.push_back(it->path());
        }
    }
    for (const fs::path& file : stale) {
        fs::remove(file, ec);  // Windows refuses while a decoder reads it: the next step retries
    }
    run.events.emit("x0", {{"step", step}, {"path", path}});
}

json hash_or_null(const std::string& path) {
    return path.empty() ? json(nullptr) : json(sha256_file(path));
}

// Everything that changes the result, as recorded in metadata.json (sigmas are added later).
json run_identity(Run& run, const sd_img_gen_params_t& params) {
    json loras = json::array();
    for (uint32_t i = 0; i < params.lora_count; i++) {
        json lora          = file_identity(params.loras[i].path);
        lora["multiplier"] = params.loras[i].multiplier;
        loras.push_back(lora);
    }
    const auto& sp = params.sample_params;
    return {
        {"format", METADATA_FORMAT},
        {"seed", params.seed},
        {"sampler", sd_sample_method_name(sp.sample_method)},
        {"scheduler", sd_scheduler_name(sp.scheduler)},
        {"width", params.width},
        {"height", params.height},
        {"strength", run.opt.load_latent.empty() ? 1.0f : params.strength},
        {"cfg_scale", sp.guidance.txt_cfg},
        {"eta", std::isfinite(sp.eta) ? json(sp.eta) : json(nullptr)},
        {"flow_shift", std::isfinite(sp.flow_shift) ? json(sp.flow_shift) : json(nullptr)},
        {"models", {{"diffusion", file_identity(run.ctx.diffusion_model_path)}}},
        {"loras", loras},
        {"inputs",
         {{"embeddings", hash_or_null(run.opt.load_embeddings)},
          {"init_latent", hash_or_null(run.opt.load_latent)},
          {"mask", hash_or_null(run.gen.mask_image_path)},
          {"ref_latents", hash_or_null(run.opt.load_ref_latents)}}},
        {"mask_mode", run.gen.mask_image_path.empty() ? json(nullptr) : json(run.opt.mask_mode)},
    };
}

// The first field (as a JSON pointer) where `found` differs from `expected`; "" when all match.
std::string first_mismatch(const json& expected, const json& found, const std::string& pointer = "") {
    for (const auto& [key, value] : expected.items()) {
        std::string name = pointer + "/" + key;
        if (!found.is_object() || !found.contains(key)) {
            return name;
        }
        if (value.is_object()) {
            std::string inner = first_mismatch(value, found[key], name);
            if (!inner.empty()) {
                return inner;
            }
        } else if (value != found[key]) {
            return name;
        }
    }
    return "";
}

json read_metadata(const std::string& dir) {
    std::string path = (fs::u8path(dir) / "metadata.json").string();
    std::ifstream in(path);
    if (!in) {
        throw StageError(EXIT_BAD_INPUT, "--resume-step: no metadata.json in --checkpoint-dir '" + dir +
                                             "': nothing to resume; run diffuse without --resume-step");
    }
    json meta = json::parse(in, nullptr, false);
    if (!meta.is_object() || !meta.contains("format")) {
        throw StageError(EXIT_BAD_INPUT, "--resume-step: '" + path + "' is not a valid metadata.json; run diffuse without --resume-step");
    }
    if (meta["format"] != METADATA_FORMAT) {
        throw StageError(EXIT_BAD_INPUT, "--resume-step: '" + path + "' has format " + meta["format"].dump() + ", this build writes " +
                                             std::to_string(METADATA_FORMAT) + "; run diffuse without --resume-step");
    }
    return meta;
}

// Runs `body`, turning a metadata.json field of the wrong type (or a step key that is no
// number) into exit 5 instead of an internal error.
template <typename F>
void guard_metadata(const std::string& dir, F body) {
    try {
        body();
    } catch (const StageError&) {
        throw;
    } catch (const std::exception& e) {
        throw StageError(EXIT_BAD_INPUT, "--resume-step: metadata.json in '" + dir + "' is damaged (" +
                                             std::string(e.what()).substr(0, 120) + "); start again without --resume-step");
    }
}

struct ResumePoint {
    json saved;                      // metadata.json
    sd::Tensor<float> x;             // x_t of the step
    std::vector<uint32_t> rng_draws;  // the sampler's noise draws up to the step
};

// metadata.json, the step's checkpoint (present, its sha256, its shape) and its noise draws:
// everything --resume-step reads that does not need the model.
ResumePoint read_resume_point(Run& run, const fs::path& dir) {
    ResumePoint point;
    const StageOptions& opt = run.opt;
    guard_metadata(opt.checkpoint_dir, [&] {
        point.saved     = read_metadata(opt.checkpoint_dir);
        json& saved     = point.saved;
        std::string key = std::to_string(opt.resume_step);
        if (!saved.contains("checkpoints") || !saved["checkpoints"].is_object() || !saved["checkpoints"].contains(key)) {
            throw StageError(EXIT_BAD_INPUT, "--resume-step " + key + ": no checkpoint for step " + key + " in '" + opt.checkpoint_dir +
                                                 "' (last completed step: " + saved.value("last_completed_step", json(nullptr)).dump() + ")");
        }
        json entry       = saved["checkpoints"][key];
        std::string path = (dir / entry["file"].get<std::string>()).string();
        std::error_code ec;
        if (!fs::is_regular_file(fs::u8path(path), ec)) {
            throw StageError(EXIT_BAD_INPUT, "--resume-step " + key + ": checkpoint '" + path + "' is missing; resume from an earlier step");
        }
        if (sha256_file(path) != entry["sha256"].get<std::string>()) {
            throw StageError(EXIT_BAD_INPUT, "--resume-step " + key + ": checkpoint '" + path + "' is damaged (hash mismatch); resume from an earlier step");
        }
        SDStageTensors t = read_tensors(path, "--resume-step");
        check_only_tensor(t, "x_t", "--resume-step", path);
        point.x    = find_tensor(t, "x_t", "--resume-step", path);
        int factor = vae_scale_factor(run);
        check_latent("--resume-step", path, "x_t", point.x, run.gen.get_resolved_width() / factor,
                     run.gen.get_resolved_height() / factor);
        point.rng_draws = entry.value("rng_draws", std::vector<uint32_t>{});
        for (uint32_t n : point.rng_draws) {
            if (n > static_cast<uint64_t>(16 * point.x.numel())) {
                throw StageError(EXIT_BAD_INPUT, "--resume-step " + key + ": metadata.json records a noise draw of " + std::to_string(n) +
                                                     " numbers for a latent of " + std::to_string(point.x.numel()) +
                                                     "; start again without --resume-step");
            }
        }
    });
    return point;
}

ExitCode run_diffuse(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    StageOptions& opt = run.opt;
    check_model(run.ctx.diffusion_model_path, "--diffusion-model", "diffusion");
    require_flag(opt.load_embeddings, "--load-embeddings FILE (from llm-encode)", "diffuse");
    require_flag(opt.save_latent, "--save-latent FILE (the final latent)", "diffuse");
    check_output_folder(opt.save_latent, "--save-latent");
    if (opt.preview != "none" && opt.preview != "proj" && opt.preview != "vae") {
        throw StageError(EXIT_USAGE, "--preview '" + opt.preview + "': use none, proj or vae");
    }
    if (opt.preview != "none" && opt.checkpoint_dir.empty()) {
        throw StageError(EXIT_USAGE, "--preview " + opt.preview + " writes DIR/preview_NNN.png: add --checkpoint-dir DIR");
    }
    if (opt.preview == "vae") {
        check_model(run.ctx.vae_path, "--vae", "vae");
    }
    if (opt.resume_step >= 0 && opt.checkpoint_dir.empty()) {
        throw StageError(EXIT_USAGE, "--resume-step needs --checkpoint-dir DIR (the folder with metadata.json)");
    }
    if (opt.mask_mode != "hard" && opt.mask_mode != "soft") {
        throw StageError(EXIT_USAGE, "--mask-mode '" + opt.mask_mode + "': use hard or soft");
    }
    if (run.gen.batch_count != 1) {
        throw StageError(EXIT_USAGE, "--batch-count: the staged pipeline makes one image per run");
    }

    check_numbers(run);

    // Inputs: every tensor is checked against the shape the DiT takes before any ggml call.
    SDStageTensors condition;
    if (plan_without(opt.load_embeddings)) {
        condition = plan_condition(run);
    } else {
        check_input_file(opt.load_embeddings, "--load-embeddings");
        condition = read_tensors(opt.load_embeddings, "--load-embeddings");
    }
    check_condition("--load-embeddings", opt.load_embeddings, condition, dit_context_dim(run.ctx.diffusion_model_path),
                    run.gen.sample_params.guidance.txt_cfg != 1.f);
    sd::Tensor<float> init_latent;
    if (!opt.load_latent.empty() && !plan_without(opt.load_latent)) {
        check_input_file(opt.load_latent, "--load-latent");
        SDStageTensors t = read_tensors(opt.load_latent, "--load-latent");
        check_only_tensor(t, "latent", "--load-latent", opt.load_latent);
        init_latent = find_tensor(t, "latent", "--load-latent", opt.load_latent);
        check_latent("--load-latent", opt.load_latent, "latent", init_latent, -1, -1);
        size_from_latent(run, init_latent, "--load-latent", opt.load_latent);
    }
    check_size(run, "diffuse");
    if (planning()) {
        run.gen.mask_image_path.clear();  // the mask blends on the host: it changes no allocation
    }
    if (!run.gen.mask_image_path.empty() && init_latent.empty()) {
        throw StageError(EXIT_USAGE, "--mask needs --load-latent (the init latent of the image to inpaint)");
    }
    std::vector<sd::Tensor<float>> ref_latents;
    if (!opt.load_ref_latents.empty() && !plan_without(opt.load_ref_latents)) {
        check_input_file(opt.load_ref_latents, "--load-ref-latents");
        SDStageTensors refs = read_tensors(opt.load_ref_latents, "--load-ref-latents");
        check_ref_latents("--load-ref-latents", opt.load_ref_latents, refs);
        for (auto& [name, tensor] : refs) {
            ref_latents.push_back(std::move(tensor));
        }
    }
    if (!run.gen.mask_image_path.empty()) {
        check_input_file(run.gen.mask_image_path, "--mask");
        if (!load_sd_image_from_file(run.gen.mask_image.put(), run.gen.mask_image_path.c_str(),
                                     run.gen.get_resolved_width(), run.gen.get_resolved_height(), 1)) {
            throw StageError(EXIT_BAD_INPUT, "--mask '" + run.gen.mask_image_path + "' is not an image sd-stage can read (PNG, JPEG, BMP)");
        }
    }

    fs::path dir;
    if (planning()) {
        opt.checkpoint_dir.clear();  // --plan writes nothing and plans a resumed run as a fresh one
        opt.resume_step = -1;
        opt.preview     = opt.preview == "vae" ? "vae" : "none";
    }
    if (!opt.checkpoint_dir.empty()) {
        dir = fs::u8path(opt.checkpoint_dir);
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (!fs::is_directory(dir, ec)) {
            throw StageError(EXIT_WRITE_FAILED, "--checkpoint-dir '" + opt.checkpoint_dir + "' cannot be created: choose a writable folder");
        }
        // Fail before the model loads, not after the first step.
        std::string probe = (dir / ".sd-stage-write-test").string();
        write_file_atomic(probe, "ok", 2);
        fs::remove(fs::u8path(probe), ec);
    }

    ResumePoint resume;
    if (opt.resume_step >= 0) {
        resume = read_resume_point(run, dir);  // a damaged checkpoint is refused before the load
    }

    std::string device = apply_backend(run, "diffusion");
    if (opt.preview == "vae") {
        std::string vae_device = apply_backend(run, "vae");
        if (vae_device != device && vae_device != "CPU") {
            throw StageError(EXIT_USAGE, "--preview vae: the VAE can run on the diffusion device (" + device + ") or the CPU only");
        }
    }
    emit_hello(run, device);

    int modules = SD_STAGE_MODULE_DIFFUSION | (opt.preview == "vae" ? SD_STAGE_MODULE_VAE : 0);
    SDCtxPtr context = load_context(run, modules, "diffusion", run.ctx.diffusion_model_path, device, true);
    if (opt.preview == "vae") {
        run.events.emit("load", {{"model", "vae"}, {"path", run.ctx.vae_path}, {"device", device}, {"seconds", 0.0}});
    }
    sd_ctx_t* ctx = context.get();
    if (run.gen.sample_params.sample_method == SAMPLE_METHOD_COUNT) {
        run.gen.sample_params.sample_method = sd_get_default_sample_method(ctx);
    }
    if (run.gen.sample_params.scheduler == SCHEDULER_COUNT) {
        run.gen.sample_params.scheduler = sd_get_default_scheduler(ctx, run.gen.sample_params.sample_method);
    }
    sd_img_gen_params_t params = run.gen.to_sd_img_gen_params_t();
    params.init_image          = {0, 0, 3, nullptr};  // the init latent comes from --load-latent
    sd::Tensor<float> soft_mask;                           // --mask-mode soft: blended here, per step
    if (opt.mask_mode == "soft" && params.mask_image.data != nullptr) {
        soft_mask         = soft_latent_mask(params.mask_image, params.width, params.height, vae_scale_factor(run));
        params.mask_image = {0, 0, 1, nullptr};  // the library's blend becomes the identity (a mask of ones)
    }

    std::vector<float> sigmas = sd_stage_sigmas(ctx, &params, !init_latent.empty());
    int steps                 = static_cast<int>(sigmas.size()) - 1;
    json meta                 = run_identity(run, params);
    meta["steps"]             = steps;
    meta["sigmas"]            = sigmas;
    meta["checkpoints"]       = json::object();
    meta["last_completed_step"] = nullptr;

    // Resume: the run must be the checkpointed one (read before the load), then start from it.
    sd::Tensor<float> x_start;
    std::vector<uint32_t> rng_draws;
    int start_step = 0;
    if (opt.resume_step >= 0) {
        guard_metadata(opt.checkpoint_dir, [&] {
            json& saved    = resume.saved;
            if (!saved.contains("mask_mode")) {  // written before --mask-mode: hard was the only mode
                saved["mask_mode"] = run.gen.mask_image_path.empty() ? json(nullptr) : json("hard");
            }
            json expected  = meta;
            expected.erase("checkpoints");
            expected.erase("last_completed_step");
            std::string mismatch = first_mismatch(expected, saved);
            if (!mismatch.empty()) {
                json::json_pointer ptr(mismatch);
                std::string field = mismatch.substr(1);
                std::replace(field.begin(), field.end(), '/', '.');
                throw StageError(EXIT_BAD_INPUT, "--resume-step: " + field + " differs from the checkpointed run (now " +
                                                     expected[ptr].dump() + ", was " + (saved.contains(ptr) ? saved[ptr].dump() : std::string("missing")) +
                                                     "); resume with the same inputs and flags, or start again without --resume-step");
            }
            int k           = opt.resume_step;
            std::string key = std::to_string(k);
            if (k > 0 && !sd_stage_sampler_resumable(params.sample_params.sample_method)) {
                throw StageError(EXIT_BAD_INPUT, std::string("--resume-step: sampler ") + sd_sample_method_name(params.sample_params.sample_method) +
                                                     " carries history between steps and cannot resume bit-exactly; use euler, euler_a, heun, dpm2 or dpm++2s_a, or start again");
            }
            if (resume.rng_draws.size() > static_cast<size_t>(8 * (steps + 1))) {
                throw StageError(EXIT_BAD_INPUT, "--resume-step " + key + ": metadata.json records " + std::to_string(resume.rng_draws.size()) +
                                                     " noise draws for " + std::to_string(steps) + " steps; start again without --resume-step");
            }
            x_start    = std::move(resume.x);
            rng_draws  = std::move(resume.rng_draws);
            start_step = k;
            for (const auto& [step_key, value] : saved["checkpoints"].items()) {
                if (std::stoi(step_key) <= k) {
                    meta["checkpoints"][step_key] = value;
                }
            }
            meta["last_completed_step"] = k;
            run.control.set_last_step(k);
        });
    }
    run.control.gate();

    double step_seconds_total = 0;
    int steps_run             = 0;
    auto step_t0              = std::chrono::steady_clock::now();
    sd::Tensor<float> last_denoised;
    int last_denoised_step = 0;
    std::string stop_reason;
    int stopped_at = start_step;

    SDStageSampleRequest req;
    req.init_latent = init_latent.empty() ? nullptr : &init_latent;
    req.ref_latents = &ref_latents;
    req.condition   = &condition;
    req.start_step  = start_step;
    req.x_start     = start_step > 0 ? &x_start : nullptr;
    req.rng_draws   = &rng_draws;
    bool x0_warned  = false;
    req.on_denoised = [&](int step, sd::Tensor<float>& denoised) {
        if (!soft_mask.empty()) {
            soft_mask_blend(denoised, init_latent, soft_mask, step, steps);
        }
        if (opt.preview != "none") {
            last_denoised      = denoised;
            last_denoised_step = step;
        }
        if (!dir.empty()) {
            write_x0_latent(run, dir, step, denoised, x0_warned);  // after the mask blend, see PROTOCOL.md
        }
    };
    req.on_step = [&](const SDStageStepInfo& info) {
        int k = info.step;
        if (k > start_step) {
            double dt = seconds_since(step_t0);
            step_seconds_total += dt;
            steps_run++;
            run.events.emit("progress", {{"step", k}, {"steps", info.steps}, {"seconds", dt},
                                         {"seconds_per_step", step_seconds_total / steps_run}});
        }
        if (!dir.empty() && (k > start_step || start_step == 0)) {
            auto ck_t0       = std::chrono::steady_clock::now();
            std::string file = step_file_name(k);
            std::string path = (dir / file).string();
            write_tensors(path, {{"x_t", *info.x}});
            json entry = {{"file", file}, {"sha256", sha256_file(path)}};
            if (!info.rng_draws->empty()) {
                entry["rng_draws"] = *info.rng_draws;
            }
            meta["checkpoints"][std::to_string(k)] = entry;
            meta["last_completed_step"]            = k;
            std::string text                       = meta.dump(1) + "\n";
            write_file_atomic((dir / "metadata.json").string(), text.data(), text.size());
            run.control.set_last_step(k);
            run.events.emit("checkpoint", {{"step", k}, {"path", path}, {"seconds", seconds_since(ck_t0)}});
            if (k > 0 && opt.preview != "none" && last_denoised_step == k) {
                sd_image_t image = {0, 0, 0, nullptr};
                preview_t mode   = opt.preview == "vae" ? PREVIEW_VAE : PREVIEW_PROJ;
                if (sd_stage_preview(ctx, last_denoised, mode, &image)) {
                    SDImageOwner owner(image);
                    auto png                 = encode_image_to_vector(EncodedImageFormat::PNG, image.data, image.width, image.height, image.channel);
                    std::string preview_path = (dir / preview_file_name(k)).string();
                    write_file_atomic(preview_path, png.data(), png.size());
                    run.events.emit("preview", {{"step", k}, {"path", preview_path}});
                }
            }
        }
        if (k < info.steps) {
            std::string stop = run.control.checkpoint_gate(k);
            if (!stop.empty()) {
                stop_reason = stop;
                stopped_at  = k;
                return false;
            }
        }
        step_t0 = std::chrono::steady_clock::now();  // step time excludes checkpoint writes and pauses
        return true;
    };

    // Test hook SD_STAGE_TEST_OOM_AT_STEP=k: after step k's checkpoint (not one a resume starts
    // from), the run fails as a real out-of-memory in step k+1 does.
    const char* oom_env = std::getenv("SD_STAGE_TEST_OOM_AT_STEP");
    int oom_at          = oom_env != nullptr && *oom_env != '\0' ? std::atoi(oom_env) : -1;
    bool injected_oom   = false;
    if (oom_at >= 0 && !planning()) {
        req.on_step = [&, inner = req.on_step](const SDStageStepInfo& info) {
            bool go_on = inner(info);
            if (info.step == oom_at && (info.step > start_step || start_step == 0)) {
                injected_oom = true;
                return false;
            }
            return go_on;
        };
    }
    if (planning()) {
        // One step builds every graph a step builds (both CFG passes, a sampler's second call).
        req.on_step     = [](const SDStageStepInfo& info) { return info.step < 1; };
        req.on_denoised = nullptr;
    }

    sd::Tensor<float> final_latent;
    SDStageSampleStatus status = sd_stage_sample(ctx, &params, req, &final_latent);
    if (injected_oom) {
        injected_out_of_memory("SD_STAGE_TEST_OOM_AT_STEP", "sampling failed (see the log above)");
    }
    if (planning() && status != SD_STAGE_SAMPLE_FAILED) {
        const auto& c = condition.front().second;  // check_condition: c_crossattn [C, tokens(, 1)]
        return finish_plan(run, {{"tokens", c.shape()[1]}, {"context_dim", c.shape()[0]}, {"ref_latents", ref_latents.size()}});
    }
    if (status == SD_STAGE_SAMPLE_STOPPED) {
        run.events.emit("stopped", {{"reason", stop_reason}, {"step", stopped_at}});
        return stop_reason == "cancelled" ? EXIT_CANCELLED : EXIT_SUSPENDED;
    }
    if (status != SD_STAGE_SAMPLE_OK) {
        library_failure(EXIT_INTERNAL, "sampling failed (see the log above)");
    }
    write_tensors(opt.save_latent, {{"latent", final_latent}});
    run.events.emit("done", {{"seconds", seconds_since(t0)}, {"outputs", {{"latent", opt.save_latent}}}});
    return EXIT_OK;
}

}  // namespace

ExitCode run_stage(Run& run) {
    g_log.verbose = run.opt.verbose;
    sd_set_log_callback(library_log, nullptr);
    g_events = &run.events;
    ggml_set_abort_callback(on_ggml_abort);
    run.control.start(&run.events);
    const std::string& stage = run.opt.stage;
    if (stage == "vae-encode") return run_vae_encode(run);
    if (stage == "llm-encode") return run_llm_encode(run);
    if (stage == "diffuse") return run_diffuse(run);
    if (stage == "vae-decode") return run_vae_decode(run);
    throw StageError(EXIT_USAGE, stage.empty() ? "--stage is required: vae-encode, llm-encode, diffuse or vae-decode"
                                               : "--stage '" + stage + "': use vae-encode, llm-encode, diffuse or vae-decode");
}

}  // namespace stage
