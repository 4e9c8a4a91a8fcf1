// --stage vae-encode: the init image (-i) and the reference images (-r) -> latents
// (native/PROTOCOL.md).

#include <chrono>
#include <string>
#include <vector>

#include "common/media_io.h"
#include "stages.hpp"

using nlohmann::json;

namespace stage {

namespace {

// -i (resized to -W/-H) and every -r (their own size, within what a latent holds).
void load_images(Run& run) {
    if (!run.gen.init_image_path.empty()) {
        load_image(run, run.gen.init_image_path, "-i", run.gen.init_image, true);
    }
    run.gen.ref_images.clear();
    int least = vae_scale_factor(run), most = static_cast<int>(MAX_LATENT_SIDE) * least;
    for (const auto& path : run.gen.ref_image_paths) {
        SDImageOwner ref({0, 0, 3, nullptr});
        load_image(run, path, "-r", ref, false);
        int w = ref.get().width, h = ref.get().height;
        if (w < least || h < least || w > most || h > most) {
            throw StageError(EXIT_BAD_INPUT, "-r '" + path + "' is " + std::to_string(w) + "x" + std::to_string(h) + " pixels: use " +
                                                 std::to_string(least) + ".." + std::to_string(most) + " per side");
        }
        run.gen.ref_images.push_back(std::move(ref));
    }
    if (!run.gen.init_image_path.empty()) {
        check_size(run, "vae-encode");
    }
}

// --save-latent (tensor `latent`) and --save-ref-latents (ref_0, ref_1, ...); the done event's outputs.
json write_latents(const Run& run, const sd::Tensor<float>& init_latent, const std::vector<sd::Tensor<float>>& ref_latents) {
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
    return outputs;
}

}  // namespace

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

    load_images(run);
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
    nlohmann::json outputs = write_latents(run, init_latent, ref_latents);
    stage_done(run, seconds_since(t0), outputs);
}

}  // namespace stage
