<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ParamTips</name>
    <message>
        <source>Width of a picture made from text, in px (a multiple of 16); with a photo open, the photo's size is used</source>
        <translation>由文字生成图片时的宽度，单位为 px（16 的倍数）；打开照片时使用照片的尺寸</translation>
    </message>
    <message>
        <source>Height of a picture made from text, in px (a multiple of 16); with a photo open, the photo's size is used</source>
        <translation>由文字生成图片时的高度，单位为 px（16 的倍数）；打开照片时使用照片的尺寸</translation>
    </message>
    <message>
        <source>Sampling steps (klein: 4)</source>
        <translation>采样步数（klein：4）</translation>
    </message>
    <message>
        <source>Random seed (-1: draw one; the run records the seed it used)</source>
        <translation>随机种子（-1：随机抽取；运行会记录实际使用的种子）</translation>
    </message>
    <message>
        <source>How much of the masked area is repainted (below 1: the old picture shows through, fewer steps run)</source>
        <translation>蒙版区域被重绘的程度（低于 1：旧图会透出，运行的步数更少）</translation>
    </message>
    <message>
        <source>The sampler (the engine lists them)</source>
        <translation>采样器（由引擎列出）</translation>
    </message>
    <message>
        <source>The noise schedule (klein: simple)</source>
        <translation>噪声调度（klein：simple）</translation>
    </message>
    <message>
        <source>Classifier-free guidance (klein: 1; other values double the work)</source>
        <translation>无分类器引导（klein：1；其他值会使计算量加倍）</translation>
    </message>
    <message>
        <source>Step previews: fast (a projection), accurate (the VAE, slower) or none</source>
        <translation>步骤预览：快速（投影）、准确（VAE，较慢）或不预览</translation>
    </message>
    <message>
        <source>What to paint in the masked area</source>
        <translation>要在蒙版区域中画出的内容</translation>
    </message>
    <message>
        <source>What to avoid (used only when the CFG scale is not 1)</source>
        <translation>要避免的内容（仅在 CFG 系数不为 1 时使用）</translation>
    </message>
    <message>
        <source>The FLUX.2 klein diffusion model (a GGUF or safetensors file)</source>
        <translation>FLUX.2 klein 扩散模型（GGUF 或 safetensors 文件）</translation>
    </message>
    <message>
        <source>The Qwen3 text encoder (a GGUF or safetensors file)</source>
        <translation>Qwen3 文本编码器（GGUF 或 safetensors 文件）</translation>
    </message>
    <message>
        <source>The FLUX.2 VAE (a safetensors file)</source>
        <translation>FLUX.2 VAE（safetensors 文件）</translation>
    </message>
    <message>
        <source>The folder of the LoRAs that &lt;lora:name:weight&gt; tags in the prompt name</source>
        <translation>存放 LoRA 的文件夹，提示词中的 &lt;lora:name:weight&gt; 标签按名称引用其中的文件</translation>
    </message>
    <message>
        <source>The device that runs the text encoder</source>
        <translation>运行文本编码器的设备</translation>
    </message>
    <message>
        <source>The device that runs the diffusion model</source>
        <translation>运行扩散模型的设备</translation>
    </message>
    <message>
        <source>The device that runs the VAE</source>
        <translation>运行 VAE 的设备</translation>
    </message>
    <message>
        <source>Encode and decode with the VAE in tiles (less memory, slower)</source>
        <translation>分块进行 VAE 编码和解码（更省内存，更慢）</translation>
    </message>
    <message>
        <source>Smaller tiles need less memory and take longer.</source>
        <translation>分块越小，占用内存越少，耗时越长。</translation>
    </message>
    <message>
        <source>With Only masked: how many px of the photo around the mask the model sees</source>
        <translation>仅蒙版区域时：模型能看到蒙版周围多少像素的照片</translation>
    </message>
    <message>
        <source>Give klein the photo as its first reference image</source>
        <translation>把照片作为 klein 的第一张参考图</translation>
    </message>
    <message>
        <source>Plan each stage's memory first and choose settings that fit the device</source>
        <translation>先为每个阶段做内存计划，并选择适合设备的设置</translation>
    </message>
    <message>
        <source>The GPU's largest single allocation, MB (0: as the driver reports; lower it for drivers that refuse less than they claim)</source>
        <translation>GPU 单次最大分配，单位 MB（0：按驱动报告的值；驱动实际拒绝的值低于其声明时请调低）</translation>
    </message>
    <message>
        <source>How the picture reaches a multiple of 16 px: pad, crop or scale</source>
        <translation>图片如何达到 16 px 的倍数：填边、裁剪或缩放</translation>
    </message>
    <message>
        <source>What the masked area holds for the model</source>
        <translation>蒙版区域交给模型时填入的内容</translation>
    </message>
    <message>
        <source>Generate only the mask's bounding box (plus padding) at full detail</source>
        <translation>只生成蒙版的外接矩形（加上边距），以完整细节生成</translation>
    </message>
    <message>
        <source>With Only masked: the region is scaled to about N×N px for the model</source>
        <translation>仅蒙版区域时：该区域会缩放到约 N×N px 交给模型</translation>
    </message>
    <message>
        <source>The soft edge of the composite, px</source>
        <translation>合成时的柔和边缘，单位 px</translation>
    </message>
    <message>
        <source>How the mask limits the change while sampling</source>
        <translation>采样时蒙版如何限制改动</translation>
    </message>
    <message>
        <source>Match the generated colours to the unmasked ring around the mask</source>
        <translation>让生成区域的颜色与蒙版周围未遮罩的一圈像素一致</translation>
    </message>
    <message>
        <source>How much of the colour match is applied (0: none, 1: all)</source>
        <translation>颜色校正的应用程度（0：不校正，1：完全校正）</translation>
    </message>
    <message>
        <source>Make the generated area meet the photo smoothly at the seam</source>
        <translation>让生成区域在接缝处与照片平滑衔接</translation>
    </message>
</context>
<context>
    <name>Queue</name>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>time left unknown until a step is measured</source>
        <translation>测出一步的用时之前，剩余时间未知</translation>
    </message>
    <message>
        <source>{prompt} (seed {seed})</source>
        <translation>{prompt}（种子 {seed}）</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <source>{message} ({path})</source>
        <translation>{message}（{path}）</translation>
    </message>
    <message>
        <source>The system reports: {reason}.</source>
        <translation>系统报告：{reason}。</translation>
    </message>
</context>
<context>
    <name>OsReasons</name>
    <message>
        <source>the file or folder does not exist</source>
        <translation>文件或文件夹不存在</translation>
    </message>
    <message>
        <source>permission denied</source>
        <translation>没有权限</translation>
    </message>
    <message>
        <source>the operation is not permitted</source>
        <translation>不允许此操作</translation>
    </message>
    <message>
        <source>the disk is read-only</source>
        <translation>磁盘是只读的</translation>
    </message>
    <message>
        <source>the disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <source>a file of that name is in the way</source>
        <translation>已有同名文件挡住了路径</translation>
    </message>
    <message>
        <source>a part of the path is a file, not a folder</source>
        <translation>路径中的一部分是文件而不是文件夹</translation>
    </message>
    <message>
        <source>it is a folder, not a file</source>
        <translation>这是文件夹而不是文件</translation>
    </message>
    <message>
        <source>the disk reported an input/output error</source>
        <translation>磁盘报告了输入/输出错误</translation>
    </message>
    <message>
        <source>the file is in use</source>
        <translation>文件正在被使用</translation>
    </message>
    <message>
        <source>the name is too long</source>
        <translation>名称太长</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Could not start: {message}</source>
        <translation>无法开始：{message}</translation>
    </message>
    <message>
        <source>Cancelled before the first step. Run all continues with the stages that are done.</source>
        <translation>在第一步之前已取消。“全部运行”会接着已完成的阶段继续。</translation>
    </message>
    <message>
        <source>Cancelled at step {step} of {steps}</source>
        <translation>已在第 {step} 步（共 {steps} 步）取消</translation>
    </message>
    <message>
        <source>Off while the run works or is paused: Suspend it (or let it end) first.</source>
        <translation>运行进行中或暂停时不可用：请先挂起运行（或等它结束）。</translation>
    </message>
</context>
<context>
    <name>GenerationStages</name>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>GenerationModels</name>
    <message>
        <source>{name} holds a {found}, not a {kind}. Choose it in the {found} field.</source>
        <translation>{name} 是{found}，不是{kind}。请在“{found}”一栏选择它。</translation>
    </message>
</context>
</TS>
