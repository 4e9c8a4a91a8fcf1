// The checkpoint folder (checkpoints.hpp; native/PROTOCOL.md, "Checkpoints", "x0 latents").

#include <algorithm>
#include <cmath>
#include <fstream>

#include "checkpoints.hpp"
#include "stages.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace stage {

namespace {

constexpr int METADATA_FORMAT = 1;

std::string step_file_name(int step) {
    char name[32];
    std::snprintf(name, sizeof(name), "step_%03d.bin", step);
    return name;
}

// x0 latents: each step's x0 prediction, for previews decoded by another process.
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

// The first field where this run differs from the checkpointed one: exit 5 naming it.
void check_same_run(const json& meta, json& saved, bool has_mask) {
    if (!saved.contains("mask_mode")) {  // written before --mask-mode: hard was the only mode
        saved["mask_mode"] = has_mask ? json("hard") : json(nullptr);
    }
    json expected = meta;
    expected.erase("checkpoints");
    expected.erase("last_completed_step");
    std::string mismatch = first_mismatch(expected, saved);
    if (mismatch.empty()) {
        return;
    }
    json::json_pointer ptr(mismatch);
    std::string field = mismatch.substr(1);
    std::replace(field.begin(), field.end(), '/', '.');
    throw StageError(EXIT_BAD_INPUT, "--resume-step: " + field + " differs from the checkpointed run (now " + expected[ptr].dump() +
                                         ", was " + (saved.contains(ptr) ? saved[ptr].dump() : std::string("missing")) +
                                         "); resume with the same inputs and flags, or start again without --resume-step");
}

}  // namespace

std::string preview_file_name(int step) {
    char name[32];
    std::snprintf(name, sizeof(name), "preview_%03d.png", step);
    return name;
}

json new_metadata(Run& run, const sd_img_gen_params_t& params, const std::vector<float>& sigmas) {
    json meta                   = run_identity(run, params);
    meta["steps"]               = static_cast<int>(sigmas.size()) - 1;
    meta["sigmas"]              = sigmas;
    meta["checkpoints"]         = json::object();
    meta["last_completed_step"] = nullptr;
    return meta;
}

void write_checkpoint(Run& run, const fs::path& dir, json& meta, const SDStageStepInfo& info) {
    auto t0          = std::chrono::steady_clock::now();
    int k            = info.step;
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
    run.events.emit("checkpoint", {{"step", k}, {"path", path}, {"seconds", seconds_since(t0)}});
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
        point.x    = read_only_tensor(path, "x_t", "--resume-step");
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

int resume_from(Run& run, ResumePoint& resume, json& meta, const sd_img_gen_params_t& params, sd::Tensor<float>* x_start,
                std::vector<uint32_t>* rng_draws) {
    const StageOptions& opt = run.opt;
    int k                   = opt.resume_step;
    int steps               = meta["steps"].get<int>();
    guard_metadata(opt.checkpoint_dir, [&] {
        json& saved = resume.saved;
        check_same_run(meta, saved, !run.gen.mask_image_path.empty());
        std::string key = std::to_string(k);
        if (k > 0 && !sd_stage_sampler_resumable(params.sample_params.sample_method)) {
            throw StageError(EXIT_BAD_INPUT, std::string("--resume-step: sampler ") + sd_sample_method_name(params.sample_params.sample_method) +
                                                 " carries history between steps and cannot resume bit-exactly; use euler, euler_a, heun, dpm2 or dpm++2s_a, or start again");
        }
        if (resume.rng_draws.size() > static_cast<size_t>(8 * (steps + 1))) {
            throw StageError(EXIT_BAD_INPUT, "--resume-step " + key + ": metadata.json records " + std::to_string(resume.rng_draws.size()) +
                                                 " noise draws for " + std::to_string(steps) + " steps; start again without --resume-step");
        }
        *x_start   = std::move(resume.x);
        *rng_draws = std::move(resume.rng_draws);
        for (const auto& [step_key, value] : saved["checkpoints"].items()) {
            if (std::stoi(step_key) <= k) {
                meta["checkpoints"][step_key] = value;
            }
        }
        meta["last_completed_step"] = k;
        run.control.set_last_step(k);
    });
    return k;
}

}  // namespace stage
