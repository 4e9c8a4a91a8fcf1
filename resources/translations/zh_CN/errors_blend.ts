<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>Unknown colour match {value}.</source>
        <translation>未知的颜色匹配设置 {value}。</translation>
    </message>
    <message>
        <source>Colour match: off or on; seam blend: off or poisson.</source>
        <translation>颜色匹配：off（关）或 on（开）；接缝融合：off（关）或 poisson（泊松）。</translation>
    </message>
    <message>
        <source>Colour match strength {value} is out of range.</source>
        <translation>颜色匹配强度 {value} 超出范围。</translation>
    </message>
    <message>
        <source>Use 0 to 1.</source>
        <translation>请使用 0 到 1 之间的值。</translation>
    </message>
    <message>
        <source>Use grey, blur, none, telea, ns or border.</source>
        <translation>请使用 grey（灰色）、blur（模糊）、none（不填充）、telea、ns（OpenCV 修复）或 border（边缘延伸）。</translation>
    </message>
</context>
</TS>
