// Devices as ggml sees them, and the one sd.cpp 596 picks for a context's main backend.

#include <cstdlib>

#include "ggml-backend.h"
#include "sd_stage.hpp"

namespace stage {

nlohmann::json list_devices() {
    nlohmann::json devices = nlohmann::json::array();
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        devices.push_back({{"name", ggml_backend_dev_name(dev)}, {"description", ggml_backend_dev_description(dev)}});
    }
    return devices;
}

// Mirrors sd_get_default_backend() (util.cpp): SD_VK_DEVICE, else the first GPU, iGPU, CPU.
std::string default_device() {
    const char* vk = std::getenv("SD_VK_DEVICE");
    if (vk != nullptr && *vk != '\0') {
        std::string name = std::string("Vulkan") + vk;
        if (ggml_backend_dev_by_name(name.c_str()) != nullptr) {
            return name;
        }
    }
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    dev                    = dev ? dev : ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
    dev                    = dev ? dev : ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    return dev ? ggml_backend_dev_name(dev) : "CPU";
}

}  // namespace stage
