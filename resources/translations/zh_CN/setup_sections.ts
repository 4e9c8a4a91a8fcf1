<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>SetupSections</name>
    <message>
        <source>Model files</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <source>Edit and prompt</source>
        <translation>编辑与提示词</translation>
    </message>
    <message>
        <source>Reference images</source>
        <translation>参考图</translation>
    </message>
    <message>
        <source>Image and sampling</source>
        <translation>图像与采样</translation>
    </message>
    <message>
        <source>Negative prompt, LoRA and sampler</source>
        <translation>反向提示词、LoRA 与采样器</translation>
    </message>
    <message>
        <source>Devices and memory</source>
        <translation>设备与内存</translation>
    </message>
    <message>
        <source>The engine did not find the chosen device {name}; choose another.</source>
        <translation>引擎没有找到所选的设备 {name}，请选择其他设备。</translation>
    </message>
</context>
</TS>
