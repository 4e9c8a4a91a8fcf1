<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BrushPanel</name>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Drag the area the model sees besides the mask (with 'Only the masked area'); a click clears it</source>
        <translation>拖出模型除蒙版外还能看到的区域（配合“仅蒙版区域”）；单击即清除</translation>
    </message>
</context>
<context>
    <name>ExpandCanvasDialog</name>
    <message>
        <source>Both sides evenly</source>
        <translation>两侧平均</translation>
    </message>
    <message>
        <source>Bottom</source>
        <translation>下</translation>
    </message>
    <message>
        <source>Compute the sides</source>
        <translation>计算各边</translation>
    </message>
    <message>
        <source>Expand canvas</source>
        <translation>扩展画布</translation>
    </message>
    <message>
        <source>Left</source>
        <translation>左</translation>
    </message>
    <message>
        <source>Left or top</source>
        <translation>左侧或上方</translation>
    </message>
    <message>
        <source>New area</source>
        <translation>新区域</translation>
    </message>
    <message>
        <source>No expansion</source>
        <translation>不扩展</translation>
    </message>
    <message>
        <source>Or reach an aspect ratio</source>
        <translation>或达到一个宽高比</translation>
    </message>
    <message>
        <source>Photo
{w}×{h} px</source>
        <translation>照片
{w}×{h} 像素</translation>
    </message>
    <message>
        <source>Pixels to add</source>
        <translation>要添加的像素</translation>
    </message>
    <message>
        <source>Ratio</source>
        <translation>比例</translation>
    </message>
    <message>
        <source>Right</source>
        <translation>右</translation>
    </message>
    <message>
        <source>Right or bottom</source>
        <translation>右侧或下方</translation>
    </message>
    <message>
        <source>The canvas becomes {w}×{h} px; the new area is generated and blended into the photo.</source>
        <translation>画布变为 {w}×{h} 像素；新区域由模型生成并融入照片。</translation>
    </message>
    <message>
        <source>The canvas stays {w}×{h} px.</source>
        <translation>画布保持 {w}×{h} 像素。</translation>
    </message>
    <message>
        <source>Top</source>
        <translation>上</translation>
    </message>
    <message>
        <source>{w}×{h} px is too large: no side may exceed {max} px.</source>
        <translation>{w}×{h} 像素过大：任何一边都不能超过 {max} 像素。</translation>
    </message>
</context>
<context>
    <name>FramePanel</name>
    <message>
        <source>Canvas</source>
        <translation>画布</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Drag a rectangle on the canvas: with 'Only the masked area' the model sees it as well as the mask's box, so a small edit can see the whole face</source>
        <translation>在画布上拖出一个矩形：配合“仅蒙版区域”，模型除了蒙版的外框还会看到它，这样小范围的修改也能看到整张脸</translation>
    </message>
    <message>
        <source>Draw</source>
        <translation>绘制</translation>
    </message>
    <message>
        <source>Expand canvas…</source>
        <translation>扩展画布…</translation>
    </message>
    <message>
        <source>Expand…</source>
        <translation>扩展…</translation>
    </message>
    <message>
        <source>Not expanded</source>
        <translation>未扩展</translation>
    </message>
    <message>
        <source>Outpaint: add pixels on any side; the new area is generated</source>
        <translation>外绘：在任意一边添加像素；新区域由模型生成</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>The mask's box</source>
        <translation>蒙版的外框</translation>
    </message>
    <message>
        <source>What the model sees</source>
        <translation>模型看到的范围</translation>
    </message>
    <message>
        <source>{w}×{h} px (+{l} left, +{t} top, +{r} right, +{b} bottom)</source>
        <translation>{w}×{h} 像素（左 +{l}，上 +{t}，右 +{r}，下 +{b}）</translation>
    </message>
    <message>
        <source>{w}×{h} px at ({x}, {y})</source>
        <translation>{w}×{h} 像素，位于 ({x}, {y})</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Context Area</source>
        <translation>上下文区域</translation>
    </message>
    <message>
        <source>Context area</source>
        <translation>上下文区域</translation>
    </message>
    <message>
        <source>Drag the area the model sees besides the mask; a click clears it</source>
        <translation>拖出模型除蒙版外还能看到的区域；单击即清除</translation>
    </message>
</context>
<context>
    <name>PrepareController</name>
    <message>
        <source>The canvas is expanded from {sw}×{sh} to {w}×{h} px (+{l} left, +{t} top, +{r} right, +{b} bottom); the new area is generated.</source>
        <translation>画布从 {sw}×{sh} 扩展到 {w}×{h} 像素（左 +{l}，上 +{t}，右 +{r}，下 +{b}）；新区域由模型生成。</translation>
    </message>
</context>
</TS>
