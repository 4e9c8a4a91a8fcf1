<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>GenerationResult</name>
    <message>
        <source>Previews and the result appear on the canvas.</source>
        <translation>预览和结果显示在画布上。</translation>
    </message>
</context>
<context>
    <name>Workspace</name>
    <message>
        <source>A slider on the canvas: the photo left of it, the new picture right of it</source>
        <translation>画布上的分割滑块：左边是原照片，右边是新图片</translation>
    </message>
    <message>
        <source>Back to the photo and its mask (hold \ for a quick look)</source>
        <translation>回到照片及其蒙版（按住 \ 可快速查看）</translation>
    </message>
    <message>
        <source>Before / after</source>
        <translation>前后对比</translation>
    </message>
    <message>
        <source>Could not save the picture</source>
        <translation>无法保存图片</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>Previews and results appear here, blended into the photo, as they come.</source>
        <translation>预览和结果生成后会在这里显示，并融合到照片中。</translation>
    </message>
    <message>
        <source>Raw frame</source>
        <translation>原始帧</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <source>Save picture</source>
        <translation>保存图片</translation>
    </message>
    <message>
        <source>Save the picture shown as PNG, its settings inside</source>
        <translation>将显示的图片保存为 PNG，并在其中写入生成参数</translation>
    </message>
    <message>
        <source>Saved {path} with its settings</source>
        <translation>已保存 {path}（含生成参数）</translation>
    </message>
    <message>
        <source>Settings in the picture</source>
        <translation>图片中的生成参数</translation>
    </message>
    <message>
        <source>Show photo</source>
        <translation>显示照片</translation>
    </message>
    <message>
        <source>Show the frame as the model made it, not blended into the photo</source>
        <translation>按模型生成的原样显示该帧，不融合到照片中</translation>
    </message>
    <message>
        <source>Step {step} of {steps} · decoded</source>
        <translation>第 {step} 步，共 {steps} 步 · 已解码</translation>
    </message>
    <message>
        <source>Step {step} of {steps} · preview</source>
        <translation>第 {step} 步，共 {steps} 步 · 预览</translation>
    </message>
    <message>
        <source>Step {step}, decoded</source>
        <translation>第 {step} 步（已解码）</translation>
    </message>
    <message>
        <source>That run cannot be read: {reason}</source>
        <translation>无法读取该运行：{reason}</translation>
    </message>
    <message>
        <source>The picture is now the photo. Ctrl+Z brings the old one back.</source>
        <translation>该图片现在成为照片。按 Ctrl+Z 可恢复原来的照片。</translation>
    </message>
    <message>
        <source>The picture shown becomes the photo to paint on and inpaint again (Ctrl+Z undoes)</source>
        <translation>把显示的图片作为新照片，可继续绘制蒙版并再次重绘（Ctrl+Z 撤销）</translation>
    </message>
    <message>
        <source>Use as new image</source>
        <translation>用作新图片</translation>
    </message>
    <message>
        <source>{file} carries the settings it was made with (prompt: “{prompt}”, seed {seed}, {steps} steps). Load them into the job? Devices and models you have chosen stay unless the picture's model files exist here.</source>
        <translation>{file} 中保存了生成它时的参数（提示词：“{prompt}”，种子 {seed}，{steps} 步）。要把这些参数载入当前任务吗？已选择的设备保持不变；只有当图片中记录的模型文件在本机存在时才替换模型。</translation>
    </message>
</context>
<context>
    <name>WorkspaceHistory</name>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Result of the run of {created}</source>
        <translation>{created} 运行的结果</translation>
    </message>
    <message>
        <source>seed {seed}</source>
        <translation>种子 {seed}</translation>
    </message>
    <message>
        <source>Seed {seed}</source>
        <translation>种子 {seed}</translation>
    </message>
    <message>
        <source>Step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
    <message>
        <source>Step {step}, decoded, of the run of {created}</source>
        <translation>{created} 运行的第 {step} 步（已解码）</translation>
    </message>
</context>
</TS>
