<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Add an object</source>
        <translation>添加物体</translation>
    </message>
    <message>
        <source>Remove an object</source>
        <translation>移除物体</translation>
    </message>
    <message>
        <source>Replace the background</source>
        <translation>替换背景</translation>
    </message>
    <message>
        <source>Free (your own settings)</source>
        <translation>自由（使用您自己的设置）</translation>
    </message>
    <message>
        <source>Grey fill, strength 1, the photo as a reference; describe the object.</source>
        <translation>灰色填充，强度 1，以照片为参考；请描述要添加的物体。</translation>
    </message>
    <message>
        <source>Fill from the surroundings, strength 1, the photo as a reference; a prompt for an empty continuation.</source>
        <translation>从周围填充，强度 1，以照片为参考；提示词为空白的自然延续。</translation>
    </message>
    <message>
        <source>Grey fill, strength 1, the photo as a reference; describe the new background (mask the background, not the subject).</source>
        <translation>灰色填充，强度 1，以照片为参考；请描述新背景（遮罩背景，而不是主体）。</translation>
    </message>
    <message>
        <source>The default fill and strength, no photo reference; your prompt stays.</source>
        <translation>默认的填充和强度，不以照片为参考；保留您的提示词。</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Sets the fill, the strength, the photo reference and a prompt to start from.</source>
        <translation>设置填充、强度、照片参考以及起始提示词。</translation>
    </message>
    <message>
        <source>Show klein the photo as its first reference</source>
        <translation>让 klein 以照片作为第一张参考图</translation>
    </message>
    <message>
        <source>klein sees the picture it repaints (before the fill) as a reference image, so what it paints matches the photo. Each step then attends to twice the picture's tokens: slower and more memory (see the memory plan).</source>
        <translation>klein 会把要重绘的图片（填充之前）作为参考图，使画出的内容与照片相符。此时每一步要处理两倍于图片的 token：更慢，也更占内存（见内存计划）。</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
</context>
<context>
    <name>MemoryPlan</name>
    <message>
        <source>Reference images: {n} (the photo first), {ref} tokens beside the picture's {tokens}</source>
        <translation>参考图：{n} 张（第一张为照片），在图片的 {tokens} 个 token 之外再加 {ref} 个 token</translation>
    </message>
    <message>
        <source>Reference images: {n}, {ref} tokens beside the picture's {tokens}</source>
        <translation>参考图：{n} 张，在图片的 {tokens} 个 token 之外再加 {ref} 个 token</translation>
    </message>
</context>
</TS>
