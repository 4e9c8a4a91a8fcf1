<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>PreparePanel</name>
    <message>
        <source>Inpaint from the edges (Telea)</source>
        <translation>从边缘修复（Telea）</translation>
    </message>
    <message>
        <source>Inpaint from the edges (Navier–Stokes)</source>
        <translation>从边缘修复（Navier–Stokes）</translation>
    </message>
    <message>
        <source>Extend the border colours</source>
        <translation>延伸边缘颜色</translation>
    </message>
    <message>
        <source>What the masked area holds before generation; grey hides the old content, the inpainting and border fills continue the surroundings into it (good for removing an object). Preview shows it.</source>
        <translation>生成前蒙版区域里放什么：灰色会遮住原来的内容；修复和边缘延伸会把周围的内容延续进来（适合移除物体）。预览中可以看到效果。</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Take the model's colour drift out of the generated area, read where nothing was meant to change (the unmasked pixels the model repainted) and only from pixels that kept the photo's texture; new content keeps its colour, and where no pixel witnesses a drift nothing is changed</source>
        <translation>去除生成区域中模型带来的色偏，色偏只从本不该改变的地方读取（模型重绘了的未遮罩像素），且只取仍保留照片纹理的像素；新内容保持原有颜色，没有任何像素能证明存在色偏时不做任何改动</translation>
    </message>
    <message>
        <source>How much of the colour correction is applied: 0 none, 1 all</source>
        <translation>颜色校正的应用程度：0 不校正，1 完全校正</translation>
    </message>
    <message>
        <source>Poisson</source>
        <translation>泊松</translation>
    </message>
    <message>
        <source>Poisson: a smooth correction makes the generated area meet the photo at the seam while keeping its detail (slower for big masks)</source>
        <translation>泊松：用平滑的校正让生成区域在接缝处与照片衔接，同时保留细节（蒙版大时较慢）</translation>
    </message>
    <message>
        <source>Colour match</source>
        <translation>颜色匹配</translation>
    </message>
    <message>
        <source>Match strength</source>
        <translation>匹配强度</translation>
    </message>
    <message>
        <source>Seam blend</source>
        <translation>接缝融合</translation>
    </message>
</context>
<context>
    <name>PrepareController</name>
    <message>
        <source>an inpainting of its edges (Telea)</source>
        <translation>由边缘修复的内容（Telea）</translation>
    </message>
    <message>
        <source>an inpainting of its edges (Navier–Stokes)</source>
        <translation>由边缘修复的内容（Navier–Stokes）</translation>
    </message>
    <message>
        <source>the nearest colours of its border</source>
        <translation>边缘上最近的颜色</translation>
    </message>
    <message>
        <source>The model's colour drift is taken out of it (strength {s}).</source>
        <translation>会去除其中模型带来的色偏（强度 {s}）。</translation>
    </message>
    <message>
        <source>The seam is blended in the gradient domain (Poisson).</source>
        <translation>接缝在梯度域中融合（泊松）。</translation>
    </message>
</context>
<context>
    <name>Workspace</name>
    <message>
        <source>Colour match</source>
        <translation>颜色匹配</translation>
    </message>
    <message>
        <source>Uncheck to see the result as generated, without its colour match and seam blend</source>
        <translation>取消勾选可查看未经颜色匹配和接缝融合的原始生成结果</translation>
    </message>
    <message>
        <source>Colour match left the colours alone: the pixels around the mask do not keep the photo's texture (slope {slope}), so they are new content, not drift.</source>
        <translation>颜色匹配未改动颜色：蒙版周围的像素没有保留照片的纹理（斜率 {slope}），因此它们是新内容，而不是色偏。</translation>
    </message>
    <message>
        <source>Colour match left the colours alone: no unmasked pixels around the mask.</source>
        <translation>颜色匹配未改动颜色：蒙版周围没有未遮罩的像素。</translation>
    </message>
    <message>
        <source>Colour match left the colours alone: only {n} unmasked pixels around the mask.</source>
        <translation>颜色匹配未改动颜色：蒙版周围只有 {n} 个未遮罩的像素。</translation>
    </message>
    <message>
        <source>Colour match left the colours alone.</source>
        <translation>颜色匹配未改动颜色。</translation>
    </message>
    <message>
        <source>Colour match found no drift to take out.</source>
        <translation>颜色匹配没有发现需要去除的色偏。</translation>
    </message>
    <message>
        <source>Colour match took out a drift of {size} LAB units (L {l}, a {a}, b {b}), confidence {confidence} %; the pixels around the mask kept the photo's texture (slope {slope}).</source>
        <translation>颜色匹配去除了 {size} 个 LAB 单位的色偏（L {l}，a {a}，b {b}），置信度 {confidence} %；蒙版周围的像素保留了照片的纹理（斜率 {slope}）。</translation>
    </message>
</context>
</TS>
