<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>The device {device} is not one the engine finds on this computer now.</source>
        <translation>引擎现在在这台电脑上找不到设备 {device}。</translation>
    </message>
    <message>
        <source>Choose a device the engine lists under Generate → Setup → Devices (Detect devices); the CPU always works. If it is a GPU, check that it and its driver are installed.</source>
        <translation>请在“生成 → 配置 → 设备”下选择引擎列出的设备（点击“检测设备”）；CPU 总是可用。如果它是 GPU，请检查 GPU 及其驱动是否已安装。</translation>
    </message>
    <message>
        <source>{message} ({path})</source>
        <translation>{message}（{path}）</translation>
    </message>
    <message>
        <source>{message} {fix}</source>
        <translation>{message}{fix}</translation>
    </message>
    <message>
        <source>{path} is cut short: the file ends before the picture does.</source>
        <translation>{path} 不完整：文件在图片结束之前就结束了。</translation>
    </message>
    <message>
        <source>{path} could not be decoded; the image library reports: “{reason}”.</source>
        <translation>无法解码 {path}；图像库报告：“{reason}”。</translation>
    </message>
    <message>
        <source>The prompt still holds {slot} from the edit preset.</source>
        <translation>提示词里仍有编辑预设留下的 {slot}。</translation>
    </message>
    <message>
        <source>Replace {slot} with a few words for what to paint.</source>
        <translation>请把 {slot} 换成描述要画内容的几个词。</translation>
    </message>
</context>
</TS>
