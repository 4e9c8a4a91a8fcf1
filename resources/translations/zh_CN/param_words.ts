<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Texts</name>
    <message>
        <source>the width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <source>the height</source>
        <translation>高度</translation>
    </message>
    <message>
        <source>the step count</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>the seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>the strength</source>
        <translation>重绘强度</translation>
    </message>
    <message>
        <source>the CFG scale</source>
        <translation>CFG 系数</translation>
    </message>
    <message>
        <source>eta (noise)</source>
        <translation>Eta（噪声）</translation>
    </message>
    <message>
        <source>the mask mode</source>
        <translation>蒙版模式</translation>
    </message>
    <message>
        <source>the step previews</source>
        <translation>步骤预览</translation>
    </message>
    <message>
        <source>the CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>flash attention</source>
        <translation>Flash Attention 开关</translation>
    </message>
    <message>
        <source>VAE tiling</source>
        <translation>VAE 分块</translation>
    </message>
    <message>
        <source>the VAE tile size</source>
        <translation>VAE 分块大小</translation>
    </message>
    <message>
        <source>“Fit settings to the device's memory”</source>
        <translation>“按设备显存调整设置”</translation>
    </message>
    <message>
        <source>the largest GPU allocation</source>
        <translation>GPU 单次最大分配</translation>
    </message>
    <message>
        <source>decoded previews</source>
        <translation>解码预览</translation>
    </message>
    <message>
        <source>memory-mapped model files</source>
        <translation>内存映射模型文件</translation>
    </message>
    <message>
        <source>the alignment</source>
        <translation>对齐方式</translation>
    </message>
    <message>
        <source>the fill</source>
        <translation>填充方式</translation>
    </message>
    <message>
        <source>“only the masked area”</source>
        <translation>“只生成蒙版区域”</translation>
    </message>
    <message>
        <source>the padding</source>
        <translation>边距</translation>
    </message>
    <message>
        <source>the feather</source>
        <translation>羽化</translation>
    </message>
    <message>
        <source>the target size of the masked area</source>
        <translation>蒙版区域的目标尺寸</translation>
    </message>
    <message>
        <source>colour match</source>
        <translation>颜色匹配</translation>
    </message>
    <message>
        <source>the colour match strength</source>
        <translation>颜色匹配强度</translation>
    </message>
    <message>
        <source>the seam blend</source>
        <translation>接缝融合</translation>
    </message>
    <message>
        <source>the photo as a reference</source>
        <translation>以照片作参考</translation>
    </message>
    <message>
        <source>the context area</source>
        <translation>上下文区域</translation>
    </message>
    <message>
        <source>the canvas expansion</source>
        <translation>画布扩展</translation>
    </message>
</context>
</TS>
