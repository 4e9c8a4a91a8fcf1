// --stage vae-decode: a latent -> the PNG (native/PROTOCOL.md).

#include <chrono>
#include <string>
#include <vector>

#include "common/media_io.h"
#include "stages.hpp"

using nlohmann::json;

namespace stage {

ExitCode run_vae_decode(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    check_model(run.ctx.vae_path, "--vae", "vae");
    require_flag(run.opt.load_latent, "--load-latent FILE", "vae-decode");
    check_output_folder(run.opt.output, "-o");
    sd::Tensor<float> latent;
    if (plan_without(run.opt.load_latent)) {
        latent = plan_latent(run, "vae-decode");
    } else {
        check_input_file(run.opt.load_latent, "--load-latent");
        latent = read_only_tensor(run.opt.load_latent, "latent", "--load-latent");
    }
    check_latent("--load-latent", run.opt.load_latent, "latent", latent, -1, -1);
    size_from_latent(run, latent, "--load-latent", run.opt.load_latent);
    std::string device = apply_backend(run, "vae");
    emit_hello(run, device);
    SDCtxPtr context           = load_context(run, SD_STAGE_MODULE_VAE, "vae", run.ctx.vae_path, device, true);
    test_hook_oom_decode(run);
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
    stage_done(run, seconds_since(t0), {{"image", run.opt.output}});
}

}  // namespace stage
