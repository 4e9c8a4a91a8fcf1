<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>PrepareController</name>
    <message>
        <source>(the masked area at its own size)</source>
        <translation>（蒙版区域保持原尺寸）</translation>
    </message>
    <message>
        <source>(the masked area scaled to about {t}×{t} px)</source>
        <translation>（蒙版区域缩放到约 {t}×{t} 像素）</translation>
    </message>
    <message>
        <source>It is scaled ×{k} to {sw}×{sh} px for the model and back for the composite.</source>
        <translation>它被缩放 ×{k} 到 {sw}×{sh} 像素交给模型，合成时再缩放回来。</translation>
    </message>
</context>
<context>
    <name>PreparePanel</name>
    <message>
        <source>Its own size</source>
        <translation>原尺寸</translation>
    </message>
    <message>
        <source>Target size</source>
        <translation>目标尺寸</translation>
    </message>
    <message>
        <source>The masked area is scaled to about this many pixels squared for the model (1024: about a megapixel, klein's native size) and back for the composite, so a small edit gets full detail. 0 keeps the area's own size.</source>
        <translation>蒙版区域会被缩放到约为此值平方的像素数交给模型（1024：约一百万像素，klein 的原生尺寸），合成时再缩放回来，这样小的修改也能得到完整的细节。0 表示保持区域的原尺寸。</translation>
    </message>
</context>
<context>
    <name>PreparePreviewDialog</name>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Mask only</source>
        <translation>只看蒙版</translation>
    </message>
    <message>
        <source>Over the picture</source>
        <translation>叠加在图片上</translation>
    </message>
    <message>
        <source>Picture only</source>
        <translation>只看图片</translation>
    </message>
    <message>
        <source>Prepared input</source>
        <translation>准备好的输入</translation>
    </message>
    <message>
        <source>What is blended back: {w}×{h} px of the photo, the mask feathered by {f} px</source>
        <translation>合成回去的部分：照片中的 {w}×{h} 像素，蒙版羽化 {f} 像素</translation>
    </message>
    <message>
        <source>What the model sees: {w}×{h} px, the mask in whole 16-px cells</source>
        <translation>模型看到的：{w}×{h} 像素，蒙版按完整的 16 像素格处理</translation>
    </message>
</context>
<context>
    <name>ReferencesPane</name>
    <message>
        <source>Add a reference image</source>
        <translation>添加参考图</translation>
    </message>
    <message>
        <source>Add reference pictures from files</source>
        <translation>从文件添加参考图</translation>
    </message>
    <message>
        <source>Add the current run's result as a reference</source>
        <translation>把当前运行的结果添加为参考图</translation>
    </message>
    <message>
        <source>Add the picture on the clipboard</source>
        <translation>添加剪贴板中的图片</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Could not add the reference image</source>
        <translation>无法添加参考图</translation>
    </message>
    <message>
        <source>Drop pictures here, paste one, or add files. The model follows them in order.</source>
        <translation>把图片拖到这里、粘贴，或添加文件。模型按顺序参考它们。</translation>
    </message>
    <message>
        <source>Move the chosen reference earlier</source>
        <translation>把选中的参考图前移</translation>
    </message>
    <message>
        <source>Move the chosen reference later</source>
        <translation>把选中的参考图后移</translation>
    </message>
    <message>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <source>Pasted picture</source>
        <translation>粘贴的图片</translation>
    </message>
    <message>
        <source>Reference images</source>
        <translation>参考图</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove the chosen reference</source>
        <translation>移除选中的参考图</translation>
    </message>
    <message>
        <source>There is no picture on the clipboard.</source>
        <translation>剪贴板中没有图片。</translation>
    </message>
    <message>
        <source>Use the result</source>
        <translation>使用结果</translation>
    </message>
    <message>
        <source>{name} is too big to hold in memory.</source>
        <translation>{name} 太大，内存放不下。</translation>
    </message>
    <message>
        <source>{name}: {w}×{h} px</source>
        <translation>{name}：{w}×{h} 像素</translation>
    </message>
</context>
</TS>
