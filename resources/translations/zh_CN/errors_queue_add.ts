<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>{name} needs a picture to work on; the job has none.</source>
        <translation>{name} 需要一张要处理的图片；此任务没有图片。</translation>
    </message>
    <message>
        <source>Open or pass an image (-i/--init-img), or leave {flag} out.</source>
        <translation>请打开或传入一张图片（-i/--init-img），或去掉 {flag}。</translation>
    </message>
    <message>
        <source>{name} is used only with only-masked (--only-masked).</source>
        <translation>{name} 只在“仅蒙版区域”（--only-masked）下使用。</translation>
    </message>
    <message>
        <source>Turn on --only-masked, or leave {flag} out.</source>
        <translation>请打开 --only-masked，或去掉 {flag}。</translation>
    </message>
    <message>
        <source>The job has {count} reference images: the photo (--source-ref) and the --ref-image pictures; the engine takes at most {maximum}.</source>
        <translation>此任务有 {count} 张参考图：照片本身（--source-ref）和 --ref-image 图片；引擎最多接受 {maximum} 张。</translation>
    </message>
    <message>
        <source>Remove {extra} of the --ref-image pictures, or leave --source-ref out.</source>
        <translation>请移除 {extra} 张 --ref-image 图片，或去掉 --source-ref。</translation>
    </message>
    <message>
        <source>The lock {path} is held by another Stepwise process.</source>
        <translation>锁 {path} 正被另一个 Stepwise 进程持有。</translation>
    </message>
    <message>
        <source>The lock {path} cannot be made (a read-only place).</source>
        <translation>无法创建锁 {path}（位置只读）。</translation>
    </message>
    <message>
        <source>Check that its folder is writable.</source>
        <translation>请检查它所在的文件夹可写。</translation>
    </message>
    <message>
        <source>The lock {path} cannot be opened: {reason}.</source>
        <translation>无法打开锁 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check that its folder exists and is writable.</source>
        <translation>请检查它所在的文件夹存在且可写。</translation>
    </message>
    <message>
        <source>--preset {preset} edits a picture, and none is given.</source>
        <translation>--preset {preset} 用于编辑图片，但没有给出图片。</translation>
    </message>
    <message>
        <source>Give the picture with -i (and the area to change with --mask).</source>
        <translation>请用 -i 给出图片（并用 --mask 给出要修改的区域）。</translation>
    </message>
    <message>
        <source>The prompt names the LoRA {lora}, but no LoRA folder is given.</source>
        <translation>提示词里写了 LoRA {lora}，但没有给出 LoRA 文件夹。</translation>
    </message>
    <message>
        <source>Give the folder that holds it with {flag}, or take the tag out of the prompt.</source>
        <translation>请用 {flag} 给出存放它的文件夹，或从提示词中去掉这个标签。</translation>
    </message>
    <message>
        <source>Move that folder or file away (Stepwise never deletes it), then queue the job again with `{command}`.</source>
        <translation>请把那个文件夹或文件移走（Stepwise 从不删除它），然后用 `{command}` 重新排队这个任务。</translation>
    </message>
</context>
</TS>
