<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Guards</name>
    <message>
        <source>Save them first?</source>
        <translation>要先保存吗？</translation>
    </message>
    <message>
        <source>The mask has changes that are not saved. They are lost when another picture replaces this one.</source>
        <translation>蒙版有尚未保存的更改。换成另一张图片时这些更改会丢失。</translation>
    </message>
    <message>
        <source>Unsaved mask</source>
        <translation>蒙版未保存</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <source>&amp;About Stepwise</source>
        <translation>关于 Stepwise(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>About Stepwise</source>
        <translation>关于 Stepwise</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Asking the engine…</source>
        <translation>正在询问引擎…</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Engine file</source>
        <translation>引擎文件</translation>
    </message>
    <message>
        <source>Inpainting and text to image with FLUX.2 [klein] on your own computer, one stage at a time.</source>
        <translation>在你自己的电脑上用 FLUX.2 [klein] 进行局部重绘和文生图，一次一个阶段。</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Menu</source>
        <translation>菜单</translation>
    </message>
    <message>
        <source>Not known yet (Detect devices in the Generate tab)</source>
        <translation>尚不清楚（请在“生成”选项卡中检测设备）</translation>
    </message>
    <message>
        <source>Open &amp;Log Folder</source>
        <translation>打开日志文件夹(&amp;L)</translation>
    </message>
    <message>
        <source>Open &amp;Runs Folder</source>
        <translation>打开运行文件夹(&amp;R)</translation>
    </message>
    <message>
        <source>{gb} GB</source>
        <translation>{gb} GB</translation>
    </message>
    <message>
        <source>allocations up to {gb} GB</source>
        <translation>单次分配最多 {gb} GB</translation>
    </message>
    <message>
        <source>Pinned source</source>
        <translation>固定的源码版本</translation>
    </message>
    <message>
        <source>Patch series</source>
        <translation>补丁系列</translation>
    </message>
    <message>
        <source>The engine did not say its version.</source>
        <translation>引擎没有报告它的版本。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Cache</source>
        <translation>缓存</translation>
    </message>
    <message>
        <source>Could not open the folder</source>
        <translation>无法打开文件夹</translation>
    </message>
    <message>
        <source>Could not save the settings</source>
        <translation>无法保存设置</translation>
    </message>
    <message>
        <source>Folders</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Model files and devices are chosen in the Generate tab.</source>
        <translation>模型文件和设备在“生成”选项卡中选择。</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Prompt encodings and image latents are kept up to this size, then the oldest go.</source>
        <translation>提示词编码和图像潜变量最多保留到这个大小，超出后删除最旧的。</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Show this folder in the file manager</source>
        <translation>在文件管理器中显示此文件夹</translation>
    </message>
</context>
</TS>
