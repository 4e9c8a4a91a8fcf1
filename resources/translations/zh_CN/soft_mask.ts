<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>PreparePanel</name>
    <message>
        <source>Soft (follows the feather)</source>
        <translation>柔和（随羽化渐变）</translation>
    </message>
    <message>
        <source>Hard (whole 16-px cells)</source>
        <translation>硬边（整块 16 像素单元）</translation>
    </message>
    <message>
        <source>How the mask limits the change while the picture is generated. Soft: the feather's half-way pixels change only in the last half of the steps, so the edge blends gradually. Hard: every masked 16-px cell is repainted fully.</source>
        <translation>生成画面时蒙版如何限制改动。柔和：羽化中途（一半权重）的像素只在后一半步数中改变，边缘因此逐渐融合。硬边：每个被蒙版覆盖的 16 像素单元都完全重绘。</translation>
    </message>
    <message>
        <source>Mask while sampling</source>
        <translation>采样时的蒙版</translation>
    </message>
</context>
</TS>
