<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>SdCliImportDialog</name>
    <message>
        <source>the text encoder's device</source>
        <translation>文本编码器的设备</translation>
    </message>
    <message>
        <source>the diffusion model's device</source>
        <translation>扩散模型的设备</translation>
    </message>
    <message>
        <source>the VAE's device</source>
        <translation>VAE 的设备</translation>
    </message>
    <message>
        <source>-r {path}: added to the reference images.</source>
        <translation>-r {path}：已添加到参考图像。</translation>
    </message>
    <message>
        <source>-r {path}: no such file; not added to the reference images.</source>
        <translation>-r {path}：文件不存在；未添加到参考图像。</translation>
    </message>
    <message>
        <source>{flag} {path}: not opened; open it on the canvas (File → Open…).</source>
        <translation>{flag} {path}：未打开；请在画布上打开它（文件 → 打开…）。</translation>
    </message>
    <message>
        <source>-W/-H {w}×{h}: ignored, the open picture sets the size.</source>
        <translation>-W/-H {w}×{h}：已忽略，尺寸由打开的图片决定。</translation>
    </message>
    <message>
        <source>{w}×{h} (the open picture)</source>
        <translation>{w}×{h}（打开的图片）</translation>
    </message>
    <message>
        <source>{w}×{h}</source>
        <translation>{w}×{h}</translation>
    </message>
    <message>
        <source>{count} of 3 model files, {size}, {steps} steps, seed {seed}.</source>
        <translation>3 个模型文件中的 {count} 个，{size}，{steps} 步，种子 {seed}。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
<context>
    <name>SdCliApply</name>
    <message>
        <source>Undo import</source>
        <translation>撤销导入</translation>
    </message>
    <message>
        <source>Put back the settings the sd-cli import replaced.</source>
        <translation>恢复被 sd-cli 导入替换的设置。</translation>
    </message>
</context>
</TS>
