<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>{path} is not a run in the runs folder {root}.</source>
        <translation>{path} 不是运行文件夹 {root} 中的运行。</translation>
    </message>
    <message>
        <source>The run folder {path} could not be deleted: {reason}.</source>
        <translation>无法删除运行文件夹 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Close programs that use files in it, then try again.</source>
        <translation>请关闭正在使用其中文件的程序，然后重试。</translation>
    </message>
</context>
</TS>
