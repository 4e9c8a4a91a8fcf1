<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Paused. The model stays loaded.</source>
        <translation>已暂停。模型仍保留在内存中。</translation>
    </message>
    <message>
        <source>Preparing the inputs…</source>
        <translation>正在准备输入…</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Engine switches</source>
        <translation>引擎开关</translation>
    </message>
</context>
<context>
    <name>Texts</name>
    <message>
        <source>{flag} has no value; ignored.</source>
        <translation>{flag} 没有值；已忽略。</translation>
    </message>
    <message>
        <source>{flag} {value}: not a number; ignored.</source>
        <translation>{flag} {value}：不是数字；已忽略。</translation>
    </message>
    <message>
        <source>Stray word “{word}” ignored.</source>
        <translation>多余的词“{word}”已忽略。</translation>
    </message>
    <message>
        <source>--seed {value}: a seed is drawn once and kept with the run, so it can be reproduced.</source>
        <translation>--seed {value}：种子只抽取一次并随运行保存，因此可以复现。</translation>
    </message>
    <message>
        <source>--output {value}: the result is saved in the run folder; use Save result… to copy it.</source>
        <translation>--output {value}：结果保存在运行文件夹中；用“保存结果…”复制出来。</translation>
    </message>
    <message>
        <source>--model {value}: klein needs separate diffusion, text encoder and VAE files.</source>
        <translation>--model {value}：klein 需要分别的扩散模型、文本编码器和 VAE 文件。</translation>
    </message>
    <message>
        <source>No {flag}: choose the file under Models.</source>
        <translation>没有 {flag}：请在“模型”中选择文件。</translation>
    </message>
    <message>
        <source>-W/-H: with a picture the size comes from the prepared picture (aligned to 16 px).</source>
        <translation>-W/-H：有图片时，尺寸来自准备好的图片（对齐到 16 px）。</translation>
    </message>
    <message>
        <source>The prompt names LoRAs but no LoRA folder is chosen; they will not load.</source>
        <translation>提示词中提到了 LoRA，但没有选择 LoRA 文件夹；它们不会被加载。</translation>
    </message>
    <message>
        <source>LoRA folder: no &lt;lora:name:weight&gt; tag in the prompt, so no LoRA is applied.</source>
        <translation>LoRA 文件夹：提示词中没有 &lt;lora:name:weight&gt; 标签，因此不会应用 LoRA。</translation>
    </message>
    <message>
        <source>LoRAs come from the prompt's tags ({loras}); changing one encodes the prompt again.</source>
        <translation>LoRA 来自提示词中的标签（{loras}）；更换 LoRA 会重新编码提示词。</translation>
    </message>
    <message>
        <source>&lt;lora:{name}&gt; names no file in {folder}.</source>
        <translation>&lt;lora:{name}&gt; 在 {folder} 中找不到对应的文件。</translation>
    </message>
    <message>
        <source>The disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <source>A file could not be written</source>
        <translation>无法写入文件</translation>
    </message>
    <message>
        <source>A model file cannot be used</source>
        <translation>无法使用模型文件</translation>
    </message>
    <message>
        <source>A saved file is damaged</source>
        <translation>已保存的文件已损坏</translation>
    </message>
    <message>
        <source>An input is not usable</source>
        <translation>输入无法使用</translation>
    </message>
    <message>
        <source>Another Stepwise works on this run; wait or start a new run.</source>
        <translation>另一个 Stepwise 正在处理此运行；请等待或开始新的运行。</translation>
    </message>
    <message>
        <source>CFG {cfg:g}: klein is distilled for CFG 1. Any other value runs the diffusion model twice per step (about twice as slow).</source>
        <translation>CFG {cfg:g}：klein 是为 CFG 1 蒸馏的。其他任何值都会让扩散模型每步运行两次（大约慢一倍）。</translation>
    </message>
    <message>
        <source>Choose the VAE file.</source>
        <translation>请选择 VAE 文件。</translation>
    </message>
    <message>
        <source>Choose the diffusion model file.</source>
        <translation>请选择扩散模型文件。</translation>
    </message>
    <message>
        <source>Choose the text encoder (LLM) file.</source>
        <translation>请选择文本编码器（LLM）文件。</translation>
    </message>
    <message>
        <source>No --cfg-scale: sd-cli's default 7 would run the model twice per step; CFG 1 is used.</source>
        <translation>没有 --cfg-scale：sd-cli 的默认值 7 会让模型每步运行两次；这里使用 CFG 1。</translation>
    </message>
    <message>
        <source>No --scheduler: sd-cli's default (discrete) nearly wastes the last step; “simple” is used.</source>
        <translation>没有 --scheduler：sd-cli 的默认调度（discrete）几乎浪费最后一步；这里使用“simple”。</translation>
    </message>
    <message>
        <source>The decode produced no picture</source>
        <translation>解码没有得到图片</translation>
    </message>
    <message>
        <source>It came out one colour, or the latent held NaN/Inf; no result was written. Try: VAE tiling, the VAE on the CPU, or run diffusion again from a checkpoint.</source>
        <translation>结果只有一种颜色，或潜变量含 NaN/Inf；没有写出结果。可尝试：开启 VAE 分块、把 VAE 放到 CPU 上，或从检查点重新运行扩散。</translation>
    </message>
    <message>
        <source>Out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>Sampler “{sampler}” cannot be resumed: after a suspend or a crash its diffusion starts over.</source>
        <translation>采样器“{sampler}”无法续跑：挂起或崩溃后，扩散会从头开始。</translation>
    </message>
    <message>
        <source>Scheduler “{scheduler}”: “simple” gives klein its flux2-like schedule.</source>
        <translation>调度器“{scheduler}”：“simple”才能给 klein 提供类似 flux2 的调度。</translation>
    </message>
    <message>
        <source>Strength 1 without a mask replaces the whole image (like text to image).</source>
        <translation>没有蒙版时强度 1 会替换整张图像（如同文生图）。</translation>
    </message>
    <message>
        <source>Strength {strength:g} runs {run} of {steps} steps.</source>
        <translation>强度 {strength:g} 会运行 {steps} 步中的 {run} 步。</translation>
    </message>
    <message>
        <source>That stage cannot run yet</source>
        <translation>该阶段还不能运行</translation>
    </message>
    <message>
        <source>The LoRA folder does not exist.</source>
        <translation>LoRA 文件夹不存在。</translation>
    </message>
    <message>
        <source>The device is not available</source>
        <translation>设备不可用</translation>
    </message>
    <message>
        <source>The engine sd-stage is missing</source>
        <translation>找不到引擎 sd-stage</translation>
    </message>
    <message>
        <source>The engine stopped making progress and was ended</source>
        <translation>引擎长时间没有进展，已被结束</translation>
    </message>
    <message>
        <source>Try: Run all continues from the last finished step; if it hangs again, open the engine log.</source>
        <translation>试试：“全部运行”会从最后完成的步骤继续；如果再次卡住，请打开引擎日志。</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly</source>
        <translation>引擎意外停止</translation>
    </message>
    <message>
        <source>The mask is empty: nothing to repaint. Paint the area to change, or use Fill All to repaint the whole picture.</source>
        <translation>蒙版为空：没有需要重绘的区域。请画出要修改的区域，或用“全部填充”重绘整张图片。</translation>
    </message>
    <message>
        <source>The negative prompt does nothing at CFG 1.</source>
        <translation>在 CFG 1 时反向提示词不起作用。</translation>
    </message>
    <message>
        <source>This is a bug in Stepwise</source>
        <translation>这是 Stepwise 的一个缺陷</translation>
    </message>
    <message>
        <source>This run is busy</source>
        <translation>此运行正被占用</translation>
    </message>
    <message>
        <source>Try: Run all continues from the last finished step; if it fails again, open the engine log.</source>
        <translation>可以试试：“全部运行”会从最后完成的一步继续；如果再次失败，请查看引擎日志。</translation>
    </message>
    <message>
        <source>Try: Run next stage runs the stages in order.</source>
        <translation>可以试试：“运行下一阶段”会按顺序运行各阶段。</translation>
    </message>
    <message>
        <source>Try: check the files under Models; each must be the right kind.</source>
        <translation>可以试试：检查“模型”中的文件，每个文件都必须是正确的类型。</translation>
    </message>
    <message>
        <source>Try: choose CPU for this stage under Devices, turn on VAE tiling, tick “Only the masked area”, or use a smaller image.</source>
        <translation>可以试试：在“设备”中为此阶段选择 CPU、打开 VAE 分块、勾选“仅蒙版区域”，或使用更小的图像。</translation>
    </message>
    <message>
        <source>Try: choose another device under Devices (CPU always works).</source>
        <translation>可以试试：在“设备”中选择其他设备（CPU 始终可用）。</translation>
    </message>
    <message>
        <source>Try: choose the engine (sd-stage) in Settings, or build it with python native/build.py.</source>
        <translation>可以试试：在“设置”中选择引擎（sd-stage），或用 python native/build.py 构建它。</translation>
    </message>
    <message>
        <source>Try: fix the file or setting named above, then start again.</source>
        <translation>可以试试：修正上面提到的文件或设置，然后重新开始。</translation>
    </message>
    <message>
        <source>Try: free some disk space or choose another folder.</source>
        <translation>可以试试：释放一些磁盘空间，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>Try: start a new run; the damaged file is not used again.</source>
        <translation>可以试试：开始新的运行；损坏的文件不会再被使用。</translation>
    </message>
    <message>
        <source>Write a prompt first.</source>
        <translation>请先填写提示词。</translation>
    </message>
    <message>
        <source>Your work is kept. The log file has the details; please report it.</source>
        <translation>你的工作已保留。详细信息在日志文件中；请报告此问题。</translation>
    </message>
    <message>
        <source>{flag} {value}: has no effect with klein; ignored.</source>
        <translation>{flag} {value}：对 klein 无效；已忽略。</translation>
    </message>
    <message>
        <source>{flag} {value}: not needed, Stepwise loads one model per stage.</source>
        <translation>{flag} {value}：不需要，Stepwise 每个阶段只加载一个模型。</translation>
    </message>
    <message>
        <source>{flag} {value}: used as {target}.</source>
        <translation>{flag} {value}：用作{target}。</translation>
    </message>
    <message>
        <source>{flag}: not understood; ignored.</source>
        <translation>{flag}：无法识别；已忽略。</translation>
    </message>
    <message>
        <source>{steps} steps: klein is distilled for about 4; more steps rarely help.</source>
        <translation>{steps} 步：klein 是为约 4 步蒸馏的；更多步数很少有帮助。</translation>
    </message>
    <message>
        <source>{width}×{height} is not a multiple of {align} px; it is aligned first.</source>
        <translation>{width}×{height} 不是 {align} px 的倍数；会先对齐。</translation>
    </message>
</context>
</TS>
