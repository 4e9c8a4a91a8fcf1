// Devices as ggml sees them, with their memory facts, and the one sd.cpp 596 picks for a
// context's main backend.

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "sd_stage.hpp"

#ifdef SD_STAGE_VULKAN
#include <vulkan/vulkan.h>
#endif

namespace stage {
namespace {

// What ggml-vulkan does not export: per physical device (by name, in enumeration order) its
// largest single allocation (ggml's rule: maxMemoryAllocationSize, capped by maintenance4's
// maxBufferSize) and whether it computes in fp16 (16-bit storage + shaderFloat16).
struct VkFacts {
    std::string name;
    uint64_t max_alloc = 0;
    bool fp16          = false;
};

std::vector<VkFacts> vulkan_facts() {
    std::vector<VkFacts> facts;
#ifdef SD_STAGE_VULKAN
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName  = "sd-stage";
    app.apiVersion        = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo     = &app;
    VkInstance instance       = VK_NULL_HANDLE;
    if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) {
        return facts;
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(instance, &count, devices.data());
    for (VkPhysicalDevice dev : devices) {
        uint32_t n_ext = 0;
        vkEnumerateDeviceExtensionProperties(dev, nullptr, &n_ext, nullptr);
        std::vector<VkExtensionProperties> exts(n_ext);
        vkEnumerateDeviceExtensionProperties(dev, nullptr, &n_ext, exts.data());
        bool storage16 = false, float16 = false, maintenance4 = false;
        for (const auto& e : exts) {
            std::string name = e.extensionName;
            storage16        = storage16 || name == "VK_KHR_16bit_storage";
            float16          = float16 || name == "VK_KHR_shader_float16_int8";
            maintenance4     = maintenance4 || name == "VK_KHR_maintenance4";
        }
        VkPhysicalDeviceMaintenance3Properties props3 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
        VkPhysicalDeviceProperties2 props             = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props.pNext                                   = &props3;
#ifdef VK_KHR_maintenance4
        VkPhysicalDeviceMaintenance4PropertiesKHR props4 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES_KHR};
        if (maintenance4) {
            props3.pNext = &props4;
        }
#endif
        vkGetPhysicalDeviceProperties2(dev, &props);
        VkFacts f;
        f.name      = props.properties.deviceName;
        f.max_alloc = props3.maxMemoryAllocationSize;
#ifdef VK_KHR_maintenance4
        if (maintenance4 && props4.maxBufferSize < f.max_alloc) {
            f.max_alloc = props4.maxBufferSize;
        }
#endif
        VkPhysicalDeviceShaderFloat16Int8Features f16 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
        VkPhysicalDeviceFeatures2 features            = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        features.pNext                                = &f16;
        vkGetPhysicalDeviceFeatures2(dev, &features);
        f.fp16 = storage16 && float16 && f16.shaderFloat16 && std::getenv("GGML_VK_DISABLE_F16") == nullptr;
        facts.push_back(f);
    }
    vkDestroyInstance(instance, nullptr);
#endif
    return facts;
}

const std::vector<VkFacts>& cached_vulkan_facts() {
    static const std::vector<VkFacts> facts = vulkan_facts();
    return facts;
}

// A byte count from the environment (ggml reads it with std::stoull); 0 when unset or garbage.
uint64_t env_bytes(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        return 0;
    }
    try {
        return std::stoull(value);
    } catch (const std::exception&) {
        return 0;
    }
}

// Linux: MemAvailable (ggml reports "free" = total for the CPU); 0 when unknown.
uint64_t host_available_bytes() {
#ifdef __linux__
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream fields(line.substr(13));
            uint64_t kib = 0;
            fields >> kib;
            return kib * 1024;
        }
    }
#endif
    return 0;
}

}  // namespace

// memory_facts false (the hello event, a --backend check): the names only, without the memory
// queries and the second Vulkan instance the facts need; a stage process starts faster.
nlohmann::json list_devices(bool memory_facts) {
    nlohmann::json devices = nlohmann::json::array();
    std::map<std::string, int> seen;  // Vulkan devices of the same name, in enumeration order
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        std::string name       = ggml_backend_dev_name(dev);
        std::string desc       = ggml_backend_dev_description(dev);
        if (!memory_facts) {
            enum ggml_backend_dev_type type = ggml_backend_dev_type(dev);
            devices.push_back({{"name", name},
                               {"description", desc},
                               {"type", type == GGML_BACKEND_DEVICE_TYPE_CPU ? "cpu" : type == GGML_BACKEND_DEVICE_TYPE_IGPU ? "igpu" : "gpu"}});
            continue;
        }
        size_t free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        nlohmann::json item = {{"name", name}, {"description", desc}, {"total_bytes", total}, {"free_bytes", free}};
        enum ggml_backend_dev_type type = ggml_backend_dev_type(dev);
        item["type"] = type == GGML_BACKEND_DEVICE_TYPE_CPU ? "cpu" : type == GGML_BACKEND_DEVICE_TYPE_IGPU ? "igpu" : "gpu";
        if (type == GGML_BACKEND_DEVICE_TYPE_CPU) {
            uint64_t available = host_available_bytes();
            if (available > 0) {
                item["free_bytes"] = available;
            }
            item["max_alloc_bytes"] = total;
            item["fp16"]            = false;
        } else if (name.rfind("Vulkan", 0) == 0) {
            // ggml's rule (ggml-vulkan.cpp): GGML_VK_FORCE_MAX_ALLOCATION_SIZE wins over the driver.
            nlohmann::json max_alloc = nullptr, fp16 = nullptr;
            int nth = seen[desc]++;
            for (const auto& f : cached_vulkan_facts()) {
                if (f.name == desc && nth-- == 0) {
                    max_alloc = f.max_alloc;
                    fp16      = f.fp16;
                    break;
                }
            }
            if (uint64_t forced = env_bytes("GGML_VK_FORCE_MAX_ALLOCATION_SIZE")) {
                max_alloc = forced;
            }
            item["max_alloc_bytes"] = max_alloc;
            item["fp16"]            = fp16;
        } else {
            item["max_alloc_bytes"] = nullptr;
            item["fp16"]            = nullptr;
        }
        devices.push_back(item);
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
