// --stage diffuse: the conditioning, the init and reference latents (and a mask) -> the final
// latent, with a checkpoint after every step, resume, pause / suspend / cancel between steps and
// previews (native/PROTOCOL.md). The checkpoint folder's format: checkpoints.cpp.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoints.hpp"
#include "common/media_io.h"
#include "stages.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace stage {

namespace {

// The flags that need no file: refused before anything is read.
void check_diffuse_flags(Run& run) {
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
}

struct DiffuseInputs {
    SDStageTensors condition;
    sd::Tensor<float> init_latent;  // empty: txt2img
    std::vector<sd::Tensor<float>> ref_latents;
};

// Every tensor is checked against the shape the DiT takes before any ggml call.
DiffuseInputs read_diffuse_inputs(Run& run) {
    const StageOptions& opt = run.opt;
    DiffuseInputs in;
    if (plan_without(opt.load_embeddings)) {
        in.condition = plan_condition(run);
    } else {
        check_input_file(opt.load_embeddings, "--load-embeddings");
        in.condition = read_tensors(opt.load_embeddings, "--load-embeddings");
    }
    check_condition("--load-embeddings", opt.load_embeddings, in.condition, dit_context_dim(run.ctx.diffusion_model_path),
                    run.gen.sample_params.guidance.txt_cfg != 1.f);
    if (!opt.load_latent.empty() && !plan_without(opt.load_latent)) {
        check_input_file(opt.load_latent, "--load-latent");
        in.init_latent = read_only_tensor(opt.load_latent, "latent", "--load-latent");
        check_latent("--load-latent", opt.load_latent, "latent", in.init_latent, -1, -1);
        size_from_latent(run, in.init_latent, "--load-latent", opt.load_latent);
    }
    check_size(run, "diffuse");
    if (planning()) {
        run.gen.mask_image_path.clear();  // the mask blends on the host: it changes no allocation
    }
    if (!run.gen.mask_image_path.empty() && in.init_latent.empty()) {
        throw StageError(EXIT_USAGE, "--mask needs --load-latent (the init latent of the image to inpaint)");
    }
    if (!opt.load_ref_latents.empty() && !plan_without(opt.load_ref_latents)) {
        check_input_file(opt.load_ref_latents, "--load-ref-latents");
        SDStageTensors refs = read_tensors(opt.load_ref_latents, "--load-ref-latents");
        check_ref_latents("--load-ref-latents", opt.load_ref_latents, refs);
        for (auto& [name, tensor] : refs) {
            in.ref_latents.push_back(std::move(tensor));
        }
    }
    if (!run.gen.mask_image_path.empty()) {
        check_input_file(run.gen.mask_image_path, "--mask");
        if (!load_sd_image_from_file(run.gen.mask_image.put(), run.gen.mask_image_path.c_str(), run.gen.get_resolved_width(),
                                     run.gen.get_resolved_height(), 1)) {
            throw StageError(EXIT_BAD_INPUT, "--mask '" + run.gen.mask_image_path + "' is not an image sd-stage can read (PNG, JPEG, BMP)");
        }
    }
    return in;
}

// --checkpoint-dir, created and probed for writing before the model loads, not after the first
// step; empty without one. --plan writes nothing and plans a resumed run as a fresh one.
fs::path prepare_checkpoint_dir(StageOptions& opt) {
    if (planning()) {
        opt.checkpoint_dir.clear();
        opt.resume_step = -1;
        opt.preview     = opt.preview == "vae" ? "vae" : "none";
    }
    if (opt.checkpoint_dir.empty()) {
        return {};
    }
    fs::path dir = fs::u8path(opt.checkpoint_dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) {
        throw StageError(EXIT_WRITE_FAILED, "--checkpoint-dir '" + opt.checkpoint_dir + "' cannot be created: choose a writable folder");
    }
    std::string probe = (dir / ".sd-stage-write-test").string();
    write_file_atomic(probe, "ok", 2, false);
    fs::remove(fs::u8path(probe), ec);
    return dir;
}

// The DiT's device (and the VAE's, for --preview vae: the same one or the CPU), then the load.
SDCtxPtr load_diffusion(Run& run) {
    std::string device = apply_backend(run, "diffusion");
    if (run.opt.preview == "vae") {
        std::string vae_device = apply_backend(run, "vae");
        if (vae_device != device && vae_device != "CPU") {
            throw StageError(EXIT_USAGE, "--preview vae: the VAE can run on the diffusion device (" + device + ") or the CPU only");
        }
    }
    emit_hello(run, device);
    int modules      = SD_STAGE_MODULE_DIFFUSION | (run.opt.preview == "vae" ? SD_STAGE_MODULE_VAE : 0);
    SDCtxPtr context = load_context(run, modules, "diffusion", run.ctx.diffusion_model_path, device, true);
    if (run.opt.preview == "vae") {
        run.events.emit("load", {{"model", "vae"}, {"path", run.ctx.vae_path}, {"device", device}, {"seconds", 0.0}});
    }
    return context;
}

// The library's parameters: the model's default sampler and scheduler, the init latent from
// --load-latent; --mask-mode soft takes the mask out (*soft_mask, blended per step here).
sd_img_gen_params_t sampling_params(Run& run, sd_ctx_t* ctx, sd::Tensor<float>* soft_mask) {
    auto& sp = run.gen.sample_params;
    if (sp.sample_method == SAMPLE_METHOD_COUNT) {
        sp.sample_method = sd_get_default_sample_method(ctx);
    }
    if (sp.scheduler == SCHEDULER_COUNT) {
        sp.scheduler = sd_get_default_scheduler(ctx, sp.sample_method);
    }
    sd_img_gen_params_t params = run.gen.to_sd_img_gen_params_t();
    params.init_image          = {0, 0, 3, nullptr};
    if (run.opt.mask_mode == "soft" && params.mask_image.data != nullptr) {
        *soft_mask        = soft_latent_mask(params.mask_image, params.width, params.height, vae_scale_factor(run));
        params.mask_image = {0, 0, 1, nullptr};  // the library's blend becomes the identity (a mask of ones)
    }
    return params;
}

// The per-step callbacks of sd_stage_sample and what they keep between steps.
class Sampling {
public:
    Sampling(Run& run, sd_ctx_t* ctx, fs::path dir, json& meta, int start_step, const sd::Tensor<float>& init_latent,
             const sd::Tensor<float>& soft_mask)
        : run_(run), ctx_(ctx), dir_(std::move(dir)), meta_(meta), start_step_(start_step), steps_(meta["steps"].get<int>()),
          init_latent_(init_latent), soft_mask_(soft_mask) {
        stopped_at = start_step;
    }

    // The x0 prediction of a step: the soft mask's blend, kept for the preview, an x0 file.
    void on_denoised(int step, sd::Tensor<float>& denoised) {
        if (!soft_mask_.empty()) {
            soft_mask_blend(denoised, init_latent_, soft_mask_, step, steps_);
        }
        if (run_.opt.preview != "none") {
            last_denoised_      = denoised;
            last_denoised_step_ = step;
        }
        if (!dir_.empty()) {
            write_x0_latent(run_, dir_, step, denoised, x0_warned_);  // after the mask blend, see PROTOCOL.md
        }
    }

    // A step boundary: progress, the checkpoint and the preview, then the gate (pause, stop).
    bool on_step(const SDStageStepInfo& info) {
        int k = info.step;
        if (k > start_step_) {
            double dt = seconds_since(step_t0_);
            step_seconds_total_ += dt;
            steps_run_++;
            run_.events.emit("progress", {{"step", k}, {"steps", info.steps}, {"seconds", dt},
                                          {"seconds_per_step", step_seconds_total_ / steps_run_}});
        }
        if (!dir_.empty() && (k > start_step_ || start_step_ == 0)) {
            write_checkpoint(run_, dir_, meta_, info);
            if (k > 0 && run_.opt.preview != "none" && last_denoised_step_ == k) {
                write_preview(k);
            }
        }
        if (k < info.steps) {
            std::string stop = run_.control.checkpoint_gate(k);
            if (!stop.empty()) {
                stop_reason = stop;
                stopped_at  = k;
                return false;
            }
        }
        step_t0_ = std::chrono::steady_clock::now();  // step time excludes checkpoint writes and pauses
        return true;
    }

    std::string stop_reason;  // set when a stop request ended sampling
    int stopped_at = 0;       // the step it ended after

private:
    void write_preview(int k) {
        sd_image_t image = {0, 0, 0, nullptr};
        preview_t mode   = run_.opt.preview == "vae" ? PREVIEW_VAE : PREVIEW_PROJ;
        if (!sd_stage_preview(ctx_, last_denoised_, mode, &image)) {
            return;
        }
        SDImageOwner owner(image);
        auto png         = encode_image_to_vector(EncodedImageFormat::PNG, image.data, image.width, image.height, image.channel);
        std::string path = (dir_ / preview_file_name(k)).string();
        write_file_atomic(path, png.data(), png.size(), false);  // a sketch: the next step's replaces it
        run_.events.emit("preview", {{"step", k}, {"path", path}});
    }

    Run& run_;
    sd_ctx_t* ctx_;
    fs::path dir_;
    json& meta_;
    int start_step_, steps_;
    const sd::Tensor<float>& init_latent_;
    const sd::Tensor<float>& soft_mask_;
    double step_seconds_total_ = 0;
    int steps_run_             = 0;
    std::chrono::steady_clock::time_point step_t0_ = std::chrono::steady_clock::now();
    sd::Tensor<float> last_denoised_;
    int last_denoised_step_ = 0;
    bool x0_warned_         = false;
};

}  // namespace

ExitCode run_diffuse(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    check_diffuse_flags(run);
    DiffuseInputs in = read_diffuse_inputs(run);
    fs::path dir     = prepare_checkpoint_dir(run.opt);
    ResumePoint resume;
    if (run.opt.resume_step >= 0) {
        resume = read_resume_point(run, dir);  // a damaged checkpoint is refused before the load
    }
    SDCtxPtr context = load_diffusion(run);
    sd_ctx_t* ctx    = context.get();
    sd::Tensor<float> soft_mask;
    sd_img_gen_params_t params = sampling_params(run, ctx, &soft_mask);
    json meta = new_metadata(run, params, sd_stage_sigmas(ctx, &params, !in.init_latent.empty()));
    sd::Tensor<float> x_start;  // resume: the run must be the checkpointed one, then starts from it
    std::vector<uint32_t> rng_draws;
    int start_step = run.opt.resume_step >= 0 ? resume_from(run, resume, meta, params, &x_start, &rng_draws) : 0;
    run.control.gate();

    Sampling sampling(run, ctx, dir, meta, start_step, in.init_latent, soft_mask);
    SDStageSampleRequest req;
    req.init_latent = in.init_latent.empty() ? nullptr : &in.init_latent;
    req.ref_latents = &in.ref_latents;
    req.condition   = &in.condition;
    req.start_step  = start_step;
    req.x_start     = start_step > 0 ? &x_start : nullptr;
    req.rng_draws   = &rng_draws;
    req.on_denoised = [&](int step, sd::Tensor<float>& denoised) { sampling.on_denoised(step, denoised); };
    req.on_step     = [&](const SDStageStepInfo& info) { return sampling.on_step(info); };
    bool injected_oom = false;
    test_hook_oom_at_step(req, start_step, &injected_oom);
    if (planning()) {
        // One step builds every graph a step builds (both CFG passes, a sampler's second call).
        req.on_step     = [](const SDStageStepInfo& info) { return info.step < 1; };
        req.on_denoised = nullptr;
    }

    sd::Tensor<float> final_latent;
    SDStageSampleStatus status = sd_stage_sample(ctx, &params, req, &final_latent);
    test_hook_oom_after_sample(injected_oom);
    if (planning() && status != SD_STAGE_SAMPLE_FAILED) {
        const auto& c = in.condition.front().second;  // check_condition: c_crossattn [C, tokens(, 1)]
        return finish_plan(run, {{"tokens", c.shape()[1]}, {"context_dim", c.shape()[0]}, {"ref_latents", in.ref_latents.size()}});
    }
    if (status == SD_STAGE_SAMPLE_STOPPED) {
        run.events.emit("stopped", {{"reason", sampling.stop_reason}, {"step", sampling.stopped_at}});
        return sampling.stop_reason == "cancelled" ? EXIT_CANCELLED : EXIT_SUSPENDED;
    }
    if (status != SD_STAGE_SAMPLE_OK) {
        library_failure(EXIT_INTERNAL, "sampling failed (see the log above)");
    }
    write_tensors(run.opt.save_latent, {{"latent", final_latent}});
    stage_done(run, seconds_since(t0), {{"latent", run.opt.save_latent}});
}

}  // namespace stage
