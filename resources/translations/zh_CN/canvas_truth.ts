<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>FitGuard</name>
    <message>
        <source>A smaller masked area: about {t}×{t}</source>
        <translation>更小的蒙版区域：约 {t}×{t}</translation>
    </message>
    <message>
        <source>A smaller size: {w}×{h}</source>
        <translation>更小的尺寸：{w}×{h}</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>Only the masked area, at about {t}×{t}</source>
        <translation>只生成蒙版区域，约 {t}×{t}</translation>
    </message>
    <message>
        <source>Run anyway</source>
        <translation>仍然运行</translation>
    </message>
    <message>
        <source>The memory plan says this job cannot fit: {stage} at {w}×{h} needs {need} on {device}, which has {available}, even with every memory saver.</source>
        <translation>内存规划显示这个任务放不下：{w}×{h} 的{stage}在 {device} 上需要 {need}，而它只有 {available}，即使用上所有省内存的设置也不够。</translation>
    </message>
    <message>
        <source>The memory plan says {stage} at {w}×{h} fits {device} only with slow settings (weights partly in RAM, many times slower). The largest size without them at this aspect ratio is {lw}×{lh}.</source>
        <translation>内存规划显示 {w}×{h} 的{stage}只有用慢速设置（部分权重放在内存中，慢很多倍）才能放进 {device}。这个宽高比下不用慢速设置的最大尺寸是 {lw}×{lh}。</translation>
    </message>
    <message>
        <source>This job does not fit the device</source>
        <translation>这个任务超出了设备的内存</translation>
    </message>
    <message>
        <source>This photo is large for inpainting at full size.</source>
        <translation>这张照片太大，不适合按原尺寸局部重绘。</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Nothing ran: the plan says the job does not fit.</source>
        <translation>没有运行：规划显示这个任务放不下。</translation>
    </message>
</context>
<context>
    <name>PreparePreviewDialog</name>
    <message>
        <source>What the model sees: {w}×{h} px, the mask soft: full inside, fading over the feather</source>
        <translation>模型看到的：{w}×{h} 像素，软蒙版：内部完全重绘，在羽化范围内逐渐减弱</translation>
    </message>
</context>
</TS>
