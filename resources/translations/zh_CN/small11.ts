<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Import undone: the settings before it are back.</source>
        <translation>已撤销导入：导入前的设置已恢复。</translation>
    </message>
</context>
<context>
    <name>PrepareController</name>
    <message>
        <source>The model input, {w}×{h} px, is {k}× the pixels of the whole photo ({pw}×{ph} px): slower and more memory. A smaller Target size keeps it smaller.</source>
        <translation>模型输入为 {w}×{h} px，是整张照片（{pw}×{ph} px）像素数的 {k} 倍：更慢，也更占内存。调小“目标尺寸”可以让它变小。</translation>
    </message>
</context>
<context>
    <name>Queue</name>
    <message>
        <source>Click the result to keep, then: Use as new image puts it on the canvas, Save as… writes it with its settings, Discard the rest deletes the other runs.</source>
        <translation>点击要保留的结果，然后：“用作新图像”把它放到画布上，“另存为…”连同其设置一起保存，“丢弃其余的”删除其他运行。</translation>
    </message>
    <message>
        <source>The selected jobs have no result yet. Select jobs that are done (Ctrl+click for several), or one job of a set of variations, then press Compare… again.</source>
        <translation>所选任务还没有结果。请选择已完成的任务（按住 Ctrl 点击可多选），或一组变体中的一个任务，然后再按“比较…”。</translation>
    </message>
    <message>
        <source>To compare, select the finished jobs in the list (Ctrl+click for several), or one job of a set of variations, then press Compare… again.</source>
        <translation>要比较，请在列表中选择已完成的任务（按住 Ctrl 点击可多选），或一组变体中的一个任务，然后再按“比较…”。</translation>
    </message>
</context>
<context>
    <name>Workspace</name>
    <message>
        <source>Save the preview of step {step} (the run's settings, stopped at it)</source>
        <translation>保存第 {step} 步的预览（运行的设置，停在这一步）</translation>
    </message>
    <message>
        <source>Save decoded step {step} (the run's settings, stopped at it)</source>
        <translation>保存解码后的第 {step} 步（运行的设置，停在这一步）</translation>
    </message>
</context>
<context>
    <name>HeldKeys</name>
    <message>
        <source>Canvas</source>
        <translation>画布</translation>
    </message>
    <message>
        <source>Window (not while typing)</source>
        <translation>窗口（输入文字时除外）</translation>
    </message>
    <message>
        <source>Show the photo under the generated picture (before / after)</source>
        <translation>显示生成图像下方的照片（前后对比）</translation>
    </message>
    <message>
        <source>hold \</source>
        <translation>按住 \</translation>
    </message>
    <message>
        <source>Pan</source>
        <translation>平移</translation>
    </message>
    <message>
        <source>hold Space and drag, or drag with the middle button</source>
        <translation>按住空格拖动，或用中键拖动</translation>
    </message>
    <message>
        <source>Zoom</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>mouse wheel</source>
        <translation>鼠标滚轮</translation>
    </message>
    <message>
        <source>Lasso: cut out instead of adding</source>
        <translation>套索：减选而不是加选</translation>
    </message>
    <message>
        <source>hold Alt</source>
        <translation>按住 Alt</translation>
    </message>
    <message>
        <source>Lasso: close the shape</source>
        <translation>套索：闭合形状</translation>
    </message>
    <message>
        <source>Enter</source>
        <translation>Enter</translation>
    </message>
    <message>
        <source>Lasso or context area: cancel the shape</source>
        <translation>套索或上下文区域：取消形状</translation>
    </message>
    <message>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
</context>
</TS>
