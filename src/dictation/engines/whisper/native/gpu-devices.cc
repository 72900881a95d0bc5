// svc's addition to the GPU builds of smart-whisper's binding (scripts/whisper-gpu.mjs links it in).
//
//   vulkanDevices()      (Vulkan build) every Vulkan device the loader finds, CPU-type ones too (ggml
//                        hides those, Mesa's lavapipe among them), so svc chooses and can say why.
//   useVulkanDevice(i, cpuType)
//                        (Vulkan build) the one ggml may use: GGML_VK_VISIBLE_DEVICES, read once when
//                        whisper.cpp first touches Vulkan, so it must come before the first model load.
//                        On a CPU-type device (Mesa's lavapipe) ggml's fused and batched shaders and
//                        its async transfers are turned off: with them Debian 12's lavapipe (Mesa
//                        22.3) crashed in about two runs of five; without them, none in 16.
//   useGgmlGpu(i)        which of ggml's GPUs the next model loads on (whisper.cpp's gpu_device).
//   ggmlDevices()        the devices ggml itself runs on (after a load: the proof of what is used).
#include <napi.h>
#ifdef SVC_GPU_VULKAN
#include <vulkan/vulkan.h>
#endif

#include <cstdlib>
#include <string>
#include <vector>

#include "ggml-backend.h"

// Read by the patched model.cc when it loads a model (scripts/whisper-gpu.mjs).
int svc_gpu_device = 0;

#ifdef SVC_GPU_VULKAN
static const char *vulkan_type(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return "discrete";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return "integrated";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return "virtual";
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return "cpu";
        default:
            return "other";
    }
}

static Napi::Value VulkanDevices(const Napi::CallbackInfo &info) {
    Napi::Env         env = info.Env();
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "svc";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    create.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    VkResult   result = vkCreateInstance(&create, nullptr, &instance);
    if (result != VK_SUCCESS) {
        // VK_ERROR_INCOMPATIBLE_DRIVER: the loader found no driver (ICD) for any card; said in words.
        Napi::Error::New(env, result == VK_ERROR_INCOMPATIBLE_DRIVER
                                  ? std::string("no Vulkan driver is installed for any card here")
                                  : "no Vulkan driver could be used (vkCreateInstance answered VkResult " +
                                        std::to_string(result) + ")")
            .ThrowAsJavaScriptException();
        return env.Null();
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(instance, &count, devices.data());
    Napi::Array out = Napi::Array::New(env, count);
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(devices[i], &props);
        VkPhysicalDeviceMemoryProperties memory;
        vkGetPhysicalDeviceMemoryProperties(devices[i], &memory);
        double local = 0;
        for (uint32_t h = 0; h < memory.memoryHeapCount; h++) {
            if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
                local += static_cast<double>(memory.memoryHeaps[h].size);
            }
        }
        Napi::Object device = Napi::Object::New(env);
        device.Set("index", i);
        device.Set("name", props.deviceName);
        device.Set("type", vulkan_type(props.deviceType));
        device.Set("memory", local);
        device.Set("api", std::to_string(VK_API_VERSION_MAJOR(props.apiVersion)) + "." +
                              std::to_string(VK_API_VERSION_MINOR(props.apiVersion)));
        out.Set(i, device);
    }
    vkDestroyInstance(instance, nullptr);
    return out;
}

static Napi::Value UseVulkanDevice(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsNumber() || !info[1].IsBoolean()) {
        Napi::TypeError::New(env, "useVulkanDevice(index, cpuType)").ThrowAsJavaScriptException();
        return env.Null();
    }
    setenv("GGML_VK_VISIBLE_DEVICES", std::to_string(info[0].As<Napi::Number>().Int32Value()).c_str(), 1);
    if (info[1].As<Napi::Boolean>().Value()) {
        for (const char *name : {"GGML_VK_DISABLE_FUSION", "GGML_VK_DISABLE_MULTI_ADD",
                                 "GGML_VK_DISABLE_GRAPH_OPTIMIZE", "GGML_VK_DISABLE_ASYNC"}) {
            setenv(name, "1", 0);
        }
    }
    return env.Undefined();
}
#endif

static Napi::Value UseGgmlGpu(const Napi::CallbackInfo &info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsNumber()) {
        Napi::TypeError::New(env, "useGgmlGpu(index)").ThrowAsJavaScriptException();
        return env.Null();
    }
    svc_gpu_device = info[0].As<Napi::Number>().Int32Value();
    return env.Undefined();
}

static Napi::Value GgmlDevices(const Napi::CallbackInfo &info) {
    Napi::Env   env = info.Env();
    size_t      count = ggml_backend_dev_count();
    Napi::Array out = Napi::Array::New(env, count);
    for (size_t i = 0; i < count; i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        size_t             free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        enum ggml_backend_dev_type type = ggml_backend_dev_type(dev);
        Napi::Object               device = Napi::Object::New(env);
        device.Set("name", ggml_backend_dev_name(dev));
        device.Set("description", ggml_backend_dev_description(dev));
        device.Set("type", type == GGML_BACKEND_DEVICE_TYPE_GPU    ? "gpu"
                           : type == GGML_BACKEND_DEVICE_TYPE_IGPU ? "igpu"
                           : type == GGML_BACKEND_DEVICE_TYPE_CPU  ? "cpu"
                                                                   : "accel");
        device.Set("free", static_cast<double>(free));
        device.Set("total", static_cast<double>(total));
        out.Set(i, device);
    }
    return out;
}

void RegisterGpuDevices(Napi::Env env, Napi::Object exports) {
#ifdef SVC_GPU_VULKAN
    exports.Set("vulkanDevices", Napi::Function::New(env, VulkanDevices));
    exports.Set("useVulkanDevice", Napi::Function::New(env, UseVulkanDevice));
#endif
    exports.Set("useGgmlGpu", Napi::Function::New(env, UseGgmlGpu));
    exports.Set("ggmlDevices", Napi::Function::New(env, GgmlDevices));
}
