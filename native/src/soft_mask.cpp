// --mask-mode soft: differential inpainting (native/PROTOCOL.md, "Masks").
//
// Hard mode is the library's blend: the mask rounded to 0/1, each latent cell the largest value
// of its 16x16 block, and in every model call `denoised * mask + init * (1 - mask)`. Soft mode
// keeps the block's largest value unrounded (m in 0..1) and gives every step its own 0/1 mask:
// in step s of N (1-based, over the steps that run after --strength) a cell may change when
// m > 1 - s/N. The blend is the library's expression with that mask, applied to the x0
// prediction (the SDStageSampleRequest::on_denoised hook), so a cell that may not change yet
// stays on the re-noised init's trajectory, and a cell of m = 0 never changes (as in hard mode).

#include "sd_stage.hpp"

// The library's (src/util.h, not included here: its LOG_* macros clash with the examples').
sd::Tensor<float> sd_image_to_tensor(sd_image_t image, int target_width, int target_height, bool scale);

namespace stage {

sd::Tensor<float> soft_latent_mask(const sd_image_t& mask, int width, int height, int factor) {
    sd::Tensor<float> pixels = sd_image_to_tensor(mask, width, height, true);  // 0..1, as hard mode reads it
    return sd::ops::interpolate(pixels, {width / factor, height / factor, 1, 1}, sd::ops::InterpolateMode::NearestMax);
}

float soft_mask_threshold(int step, int steps) {
    return 1.0f - static_cast<float>(step) / static_cast<float>(steps);
}

void soft_mask_blend(sd::Tensor<float>& denoised, const sd::Tensor<float>& init, const sd::Tensor<float>& mask, int step,
                     int steps) {
    const float threshold = soft_mask_threshold(step, steps);
    sd::Tensor<float> open(mask.shape());
    const float* m = mask.data();
    float* o       = open.data();
    for (int64_t i = 0; i < mask.numel(); i++) {
        o[i] = m[i] > threshold ? 1.0f : 0.0f;
    }
    denoised = denoised * open + init * (1.0f - open);  // the library's blend, with this step's mask
}

}  // namespace stage
