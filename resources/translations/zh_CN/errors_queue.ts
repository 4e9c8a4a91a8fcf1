<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>--variations {count} is out of range.</source>
        <translation>--variations {count} 超出范围。</translation>
    </message>
    <message>
        <source>Accept a step that has a checkpoint, or resume the run.</source>
        <translation>请接受一个有检查点的步骤，或继续这次运行。</translation>
    </message>
    <message>
        <source>Add the job again once the file is written.</source>
        <translation>请等文件写完后再重新添加这个任务。</translation>
    </message>
    <message>
        <source>Cannot read the prompt list {path}: {reason}.</source>
        <translation>无法读取提示词列表 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Give a UTF-8 text file with one prompt per line.</source>
        <translation>请提供每行一个提示词的 UTF-8 文本文件。</translation>
    </message>
    <message>
        <source>Move it (and {backup}) away to start an empty queue; finished runs stay in the runs folder.</source>
        <translation>把它（以及 {backup}）移走即可从空队列开始；已完成的运行仍保留在运行文件夹中。</translation>
    </message>
    <message>
        <source>Pause the queue (it stops after this job) or suspend the worker first.</source>
        <translation>请先暂停队列（它会在这个任务之后停下）或挂起运行队列的进程。</translation>
    </message>
    <message>
        <source>Remove the job and add it again with the original file.</source>
        <translation>请移除这个任务，并用原始文件重新添加。</translation>
    </message>
    <message>
        <source>Resume the run first; accept a step once it has run.</source>
        <translation>请先继续这次运行；某一步运行完之后再接受它。</translation>
    </message>
    <message>
        <source>Resume the run instead; this checkpoint cannot be used.</source>
        <translation>请改为继续这次运行；这个检查点无法使用。</translation>
    </message>
    <message>
        <source>Split the list.</source>
        <translation>请把列表拆分开。</translation>
    </message>
    <message>
        <source>The checkpoint {path} holds no x_t tensor.</source>
        <translation>检查点 {path} 中没有 x_t 张量。</translation>
    </message>
    <message>
        <source>The job {id} is running.</source>
        <translation>任务 {id} 正在运行。</translation>
    </message>
    <message>
        <source>The prompt list {path} has no prompt.</source>
        <translation>提示词列表 {path} 中没有提示词。</translation>
    </message>
    <message>
        <source>The prompt list {path} has {count} prompts; at most {most} are queued at once.</source>
        <translation>提示词列表 {path} 有 {count} 个提示词；一次最多加入 {most} 个。</translation>
    </message>
    <message>
        <source>The queue file {path} is damaged.</source>
        <translation>队列文件 {path} 已损坏。</translation>
    </message>
    <message>
        <source>The queue {path} is held by another Stepwise process.</source>
        <translation>队列 {path} 正被另一个 Stepwise 进程占用。</translation>
    </message>
    <message>
        <source>The queued copy {path} of {source} cannot be read.</source>
        <translation>无法读取 {source} 在队列中的副本 {path}。</translation>
    </message>
    <message>
        <source>The queued copy {path} of {source} changed since it was queued.</source>
        <translation>{source} 在队列中的副本 {path} 自加入队列后已被改动。</translation>
    </message>
    <message>
        <source>The run {path} has no checkpoints of its current job to accept.</source>
        <translation>运行 {path} 没有属于其当前任务、可供接受的检查点。</translation>
    </message>
    <message>
        <source>The run {path} has no valid checkpoint for step {step} (valid: {have}).</source>
        <translation>运行 {path} 没有第 {step} 步的有效检查点（有效的：{have}）。</translation>
    </message>
    <message>
        <source>There is no job {id} in the queue.</source>
        <translation>队列中没有任务 {id}。</translation>
    </message>
    <message>
        <source>Use 1 to {most}.</source>
        <translation>请使用 1 到 {most}。</translation>
    </message>
    <message>
        <source>Wait a moment and try again.</source>
        <translation>请稍等片刻再试。</translation>
    </message>
    <message>
        <source>Write one prompt per line.</source>
        <translation>请每行写一个提示词。</translation>
    </message>
    <message>
        <source>`queue list` shows the queue's jobs.</source>
        <translation>`queue list` 会列出队列中的任务。</translation>
    </message>
    <message>
        <source>{path} changed while it was being queued.</source>
        <translation>{path} 在加入队列的过程中发生了变化。</translation>
    </message>
</context>
</TS>
