// Staged generation API (stage_api.h). Included at the end of stable-diffusion.cpp because it
// drives StableDiffusionGGML and generate_image()'s helpers (GenerationRequest, SamplePlan,
// prepare_image_generation_*) directly, so that each stage computes exactly what
// generate_image() computes.

#include "stage_api.h"

namespace {

std::string sd_stage_normalized_version_name(int version) {
    std::string name;
    for (const char* c = model_version_to_str[version]; *c != '\0'; c++) {
        if (*c == ' ') {
            name += '-';
        } else if (*c != '.' && *c != '(' && *c != ')') {
            name += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
        }
    }
    return name;
}

// Records the size of every randn call so that a resumed run can replay them.
class SDStageRecordingRNG : public RNG {
public:
    std::shared_ptr<RNG> inner;
    std::vector<uint32_t> draws;

    explicit SDStageRecordingRNG(std::shared_ptr<RNG> inner)
        : inner(std::move(inner)) {}

    void manual_seed(uint64_t seed) override {
        inner->manual_seed(seed);
    }

    std::vector<float> randn(uint32_t n) override {
        draws.push_back(n);
        return inner->randn(n);
    }
};

bool sd_stage_version_supported(SDVersion version) {
    // c_concat / control latents are made from pixels inside prepare_image_generation_latents();
    // the staged path does not carry them.
    return !(sd_version_is_inpaint(version) || sd_version_is_unet_edit(version) || sd_version_is_control(version) ||
             sd_version_is_wan(version) || version == VERSION_SVD);
}

sd::Tensor<float> sd_stage_denoise_mask(const sd_img_gen_params_t* params, const GenerationRequest& request) {
    sd::Tensor<float> mask;
    if (params->mask_image.data != nullptr) {
        mask = sd_image_to_tensor(params->mask_image, request.width, request.height);
        mask = sd::ops::round(mask);
    } else {
        mask = sd::full<float>({request.width, request.height, 1, 1}, 1.f);
    }
    return sd::ops::interpolate(mask,
                                {request.width / request.vae_scale_factor, request.height / request.vae_scale_factor, 1, 1},
                                sd::ops::InterpolateMode::NearestMax);
}

// The strength truncation of prepare_image_generation_latents().
void sd_stage_truncate_for_strength(SamplePlan* plan, const GenerationRequest& request) {
    if (request.strength < 1.f) {
        size_t t_enc = static_cast<size_t>(plan->sample_steps * request.strength);
        if (t_enc == static_cast<size_t>(plan->sample_steps)) {
            t_enc--;
        }
        std::vector<float> sigma_sched(plan->sigmas.begin() + plan->sample_steps - t_enc - 1, plan->sigmas.end());
        plan->sigmas       = std::move(sigma_sched);
        plan->sample_steps = static_cast<int>(plan->sigmas.size() - 1);
    }
}


bool sd_stage_condition_from_tensors(const SDStageTensors& tensors, const std::string& prefix, SDCondition* cond) {
    bool any = false;
    for (const auto& [name, tensor] : tensors) {
        if (name.compare(0, prefix.size(), prefix) != 0) {
            continue;
        }
        std::string field = name.substr(prefix.size());
        if (field == "c_crossattn") {
            cond->c_crossattn = tensor;
        } else if (field == "c_vector") {
            cond->c_vector = tensor;
        } else if (field.rfind("extra_c_crossattn_", 0) == 0) {
            cond->extra_c_crossattns.push_back(tensor);
        } else {
            continue;
        }
        any = true;
    }
    return any;
}

}  // namespace

// Also used by generate_image()'s SD_STAGE_DUMP_DIR hook.
static void sd_stage_condition_to_tensors(const SDCondition& cond, const std::string& prefix, SDStageTensors* out) {
    if (!cond.c_crossattn.empty()) {
        out->emplace_back(prefix + "c_crossattn", cond.c_crossattn);
    }
    if (!cond.c_vector.empty()) {
        out->emplace_back(prefix + "c_vector", cond.c_vector);
    }
    for (size_t i = 0; i < cond.extra_c_crossattns.size(); i++) {
        out->emplace_back(prefix + "extra_c_crossattn_" + std::to_string(i), cond.extra_c_crossattns[i]);
    }
}

sd_ctx_t* sd_stage_new_ctx(const sd_ctx_params_t* params, int modules, const char* version_hint) {
    SDVersion hint = VERSION_COUNT;
    if (version_hint != nullptr && *version_hint != '\0') {
        for (int v = 0; v < VERSION_COUNT; v++) {
            if (sd_stage_normalized_version_name(v) == version_hint) {
                hint = static_cast<SDVersion>(v);
            }
        }
        if (hint == VERSION_COUNT) {
            LOG_ERROR("unknown model version '%s' (known: %s)", version_hint, sd_stage_version_names().c_str());
            return nullptr;
        }
    }
    sd_ctx_t* sd_ctx = (sd_ctx_t*)malloc(sizeof(sd_ctx_t));
    if (sd_ctx == nullptr) {
        return nullptr;
    }
    sd_ctx->sd                     = new StableDiffusionGGML();
    sd_ctx->sd->stage_modules      = modules & SD_STAGE_MODULE_ALL;
    sd_ctx->sd->stage_version_hint = hint;
    if (!sd_ctx->sd->init(params)) {
        delete sd_ctx->sd;
        free(sd_ctx);
        return nullptr;
    }
    return sd_ctx;
}

std::string sd_stage_version_name(const sd_ctx_t* sd_ctx) {
    return sd_stage_normalized_version_name(sd_ctx->sd->version);
}

std::string sd_stage_version_names() {
    std::string names;
    for (int v = 0; v < VERSION_COUNT; v++) {
        names += (v ? ", " : "") + sd_stage_normalized_version_name(v);
    }
    return names;
}

bool sd_stage_encode_latents(sd_ctx_t* sd_ctx,
                             const sd_img_gen_params_t* params,
                             sd::Tensor<float>* init_latent,
                             std::vector<sd::Tensor<float>>* ref_latents) {
    if (!sd_stage_version_supported(sd_ctx->sd->version)) {
        LOG_ERROR("model version %s is not supported by the staged pipeline", model_version_to_str[sd_ctx->sd->version]);
        return false;
    }
    sd_ctx->sd->vae_tiling_params = params->vae_tiling_params;
    GenerationRequest request(sd_ctx, params);
    sd_ctx->sd->rng->manual_seed(request.seed);
    sd_ctx->sd->sampler_rng->manual_seed(request.seed);
    sd_ctx->sd->apply_loras(params->loras, params->lora_count);
    ImageVaeAxesGuard axes_guard(sd_ctx, params, request);
    SamplePlan plan(sd_ctx, params, request);
    auto latents = prepare_image_generation_latents(sd_ctx, params, &request, &plan);
    if (!latents.has_value()) {
        return false;
    }
    *init_latent = params->init_image.data != nullptr ? std::move(latents->init_latent) : sd::Tensor<float>();
    *ref_latents = std::move(latents->ref_latents);
    return true;
}

bool sd_stage_encode_condition(sd_ctx_t* sd_ctx, const sd_img_gen_params_t* params, SDStageTensors* condition) {
    if (!sd_stage_version_supported(sd_ctx->sd->version)) {
        LOG_ERROR("model version %s is not supported by the staged pipeline", model_version_to_str[sd_ctx->sd->version]);
        return false;
    }
    GenerationRequest request(sd_ctx, params);
    sd_ctx->sd->rng->manual_seed(request.seed);
    sd_ctx->sd->sampler_rng->manual_seed(request.seed);
    sd_ctx->sd->apply_loras(params->loras, params->lora_count);
    SamplePlan plan(sd_ctx, params, request);
    ImageGenerationLatents latents;  // the conditioners of the supported versions read no pixels
    auto embeds = prepare_image_generation_embeds(sd_ctx, params, &request, &plan, &latents);
    if (!embeds.has_value()) {
        return false;
    }
    condition->clear();
    sd_stage_condition_to_tensors(embeds->cond, "", condition);
    sd_stage_condition_to_tensors(embeds->uncond, "uncond_", condition);
    return !condition->empty();
}

std::vector<float> sd_stage_sigmas(sd_ctx_t* sd_ctx, const sd_img_gen_params_t* params, bool has_init_image) {
    GenerationRequest request(sd_ctx, params);
    sd_ctx->sd->set_flow_shift(params->sample_params.flow_shift);
    SamplePlan plan(sd_ctx, params, request);
    if (has_init_image) {
        sd_stage_truncate_for_strength(&plan, request);
    }
    return plan.sigmas;
}

bool sd_stage_sampler_resumable(enum sample_method_t method) {
    switch (method) {
        case EULER_SAMPLE_METHOD:
        case EULER_A_SAMPLE_METHOD:
        case HEUN_SAMPLE_METHOD:
        case DPM2_SAMPLE_METHOD:
        case DPMPP2S_A_SAMPLE_METHOD:
            return true;
        default:  // multistep samplers carry history between steps
            return false;
    }
}

SDStageSampleStatus sd_stage_sample(sd_ctx_t* sd_ctx,
                                    const sd_img_gen_params_t* params,
                                    const SDStageSampleRequest& req,
                                    sd::Tensor<float>* final_latent) {
    StableDiffusionGGML* sd = sd_ctx->sd;
    if (!sd_stage_version_supported(sd->version)) {
        LOG_ERROR("model version %s is not supported by the staged pipeline", model_version_to_str[sd->version]);
        return SD_STAGE_SAMPLE_FAILED;
    }
    if (req.condition == nullptr) {
        LOG_ERROR("sd_stage_sample: no conditioning");
        return SD_STAGE_SAMPLE_FAILED;
    }
    sd->vae_tiling_params = params->vae_tiling_params;
    GenerationRequest request(sd_ctx, params);
    sd->rng->manual_seed(request.seed);
    sd->sampler_rng->manual_seed(request.seed);
    sd->set_flow_shift(params->sample_params.flow_shift);
    sd->apply_loras(params->loras, params->lora_count);
    ImageVaeAxesGuard axes_guard(sd_ctx, params, request);
    SamplePlan plan(sd_ctx, params, request);

    bool img2img = req.init_latent != nullptr && !req.init_latent->empty();
    if (img2img) {
        sd_stage_truncate_for_strength(&plan, request);
    }
    sd::Tensor<float> init_latent = img2img ? *req.init_latent : sd->generate_init_latent(request.width, request.height);
    sd::Tensor<float> denoise_mask = sd_stage_denoise_mask(params, request);
    std::vector<sd::Tensor<float>> no_refs;
    const std::vector<sd::Tensor<float>>& ref_latents = req.ref_latents != nullptr ? *req.ref_latents : no_refs;

    ImageGenerationEmbeds embeds;
    if (!sd_stage_condition_from_tensors(*req.condition, "", &embeds.cond)) {
        LOG_ERROR("sd_stage_sample: the conditioning has no c_crossattn / c_vector");
        return SD_STAGE_SAMPLE_FAILED;
    }
    if (request.use_uncond && !sd_stage_condition_from_tensors(*req.condition, "uncond_", &embeds.uncond)) {
        LOG_ERROR("sd_stage_sample: cfg != 1 needs the negative prompt's conditioning (uncond_*); encode it with the same cfg scale");
        return SD_STAGE_SAMPLE_FAILED;
    }
    if (request.use_img_cond) {
        embeds.img_cond = SDCondition(embeds.uncond.c_crossattn, embeds.uncond.c_vector, embeds.cond.c_concat);
    }

    int steps = static_cast<int>(plan.sigmas.size()) - 1;
    if (req.start_step < 0 || req.start_step > steps) {
        LOG_ERROR("sd_stage_sample: start step %d outside 0..%d", req.start_step, steps);
        return SD_STAGE_SAMPLE_FAILED;
    }
    if (req.on_plan) {
        req.on_plan(plan.sigmas);
    }

    // As generate_image(): reseed, draw the start noise, then the sampler continues the stream.
    sd->rng->manual_seed(request.seed);
    sd->sampler_rng->manual_seed(request.seed);
    sd::Tensor<float> noise = sd::randn_like<float>(init_latent, sd->rng);
    auto recording          = std::make_shared<SDStageRecordingRNG>(sd->sampler_rng);
    if (req.rng_draws != nullptr) {
        for (uint32_t n : *req.rng_draws) {
            recording->randn(n);
        }
    }

    if (req.start_step == steps) {  // nothing left to run: the state is the final latent
        if (req.x_start == nullptr) {
            return SD_STAGE_SAMPLE_FAILED;
        }
        *final_latent = sd->denoiser->inverse_noise_scaling(plan.sigmas.back(), *req.x_start);
        return SD_STAGE_SAMPLE_OK;
    }

    bool stopped   = false;
    int last_step  = 0;
    SDStageSampleHooks hooks;
    hooks.x_start      = req.start_step > 0 ? req.x_start : nullptr;
    hooks.before_model = [&](int step, const sd::Tensor<float>& x, float) {
        int s = std::abs(step);
        if (s == last_step) {
            return true;  // second model call of a two-call step
        }
        last_step = s;
        if (!req.on_step) {
            return true;
        }
        SDStageStepInfo info{req.start_step + s - 1, steps, &x, &recording->draws};
        if (!req.on_step(info)) {
            stopped = true;
            return false;
        }
        return true;
    };
    hooks.on_denoised = [&](int step, sd::Tensor<float>& denoised) {
        if (req.on_denoised) {
            req.on_denoised(req.start_step + std::abs(step), denoised);
        }
    };

    std::vector<float> sigmas(plan.sigmas.begin() + req.start_step, plan.sigmas.end());
    std::shared_ptr<RNG> saved_sampler_rng = sd->sampler_rng;
    sd->sampler_rng                        = recording;
    sd->stage_hooks                        = &hooks;
    sd::Tensor<float> x0 = sd->sample(sd->diffusion_model,
                                      true,
                                      init_latent,
                                      std::move(noise),
                                      embeds.cond,
                                      embeds.uncond,
                                      embeds.img_cond,
                                      embeds.id_cond,
                                      sd::Tensor<float>(),
                                      request.control_strength,
                                      request.guidance,
                                      plan.eta,
                                      request.shifted_timestep,
                                      plan.sample_method,
                                      sd->is_flow_denoiser(),
                                      sigmas,
                                      plan.start_merge_step,
                                      ref_latents,
                                      request.increase_ref_index,
                                      denoise_mask,
                                      sd::Tensor<float>(),
                                      1.f,
                                      request.cache_params);
    sd->stage_hooks = nullptr;
    sd->sampler_rng = saved_sampler_rng;
    if (stopped) {
        return SD_STAGE_SAMPLE_STOPPED;
    }
    if (x0.empty()) {
        return SD_STAGE_SAMPLE_FAILED;
    }
    if (req.on_step) {
        // sample() already applied inverse_noise_scaling at the last sigma (0 for every
        // schedule here, where it is the identity), so x0 is also the state after the last step.
        SDStageStepInfo info{steps, steps, &x0, &recording->draws};
        req.on_step(info);
    }
    *final_latent = std::move(x0);
    return SD_STAGE_SAMPLE_OK;
}

bool sd_stage_decode(sd_ctx_t* sd_ctx, const sd_img_gen_params_t* params, const sd::Tensor<float>& latent, sd_image_t* image) {
    sd_ctx->sd->vae_tiling_params = params->vae_tiling_params;
    GenerationRequest request(sd_ctx, params);
    request.batch_count = 1;
    sd_ctx->sd->apply_loras(params->loras, params->lora_count);
    ImageVaeAxesGuard axes_guard(sd_ctx, params, request);
    sd_image_t* images = decode_image_outputs(sd_ctx, request, {latent});
    if (images == nullptr) {
        return false;
    }
    *image = images[0];
    free(images);
    return image->data != nullptr;
}

bool sd_stage_preview(sd_ctx_t* sd_ctx, const sd::Tensor<float>& latent, enum preview_t mode, sd_image_t* image) {
    *image        = {0, 0, 0, nullptr};
    auto callback = [image](int, int frame_count, sd_image_t* frames, bool, void*) {
        if (frame_count >= 1 && frames[0].data != nullptr) {
            size_t size = static_cast<size_t>(frames[0].width) * frames[0].height * frames[0].channel;
            *image      = frames[0];
            image->data = (uint8_t*)malloc(size);
            if (image->data != nullptr) {
                memcpy(image->data, frames[0].data, size);
            }
        }
    };
    sd_ctx->sd->preview_image(0, latent, sd_ctx->sd->version, mode, callback, nullptr, false);
    return image->data != nullptr;
}
