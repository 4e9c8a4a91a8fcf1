<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Queue</name>
    <message>
        <source>Add to queue</source>
        <translation>加入队列</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Compare results</source>
        <translation>比较结果</translation>
    </message>
    <message>
        <source>Compare…</source>
        <translation>比较…</translation>
    </message>
    <message>
        <source>Continue the queue?</source>
        <translation>继续运行队列？</translation>
    </message>
    <message>
        <source>Discard the rest</source>
        <translation>丢弃其余的</translation>
    </message>
    <message>
        <source>Discard the rest?</source>
        <translation>丢弃其余的？</translation>
    </message>
    <message>
        <source>Each variation draws its own seed (else: the seed, the seed + 1, …)</source>
        <translation>每个变体各自随机抽取种子（否则：种子、种子 + 1、…）</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Move {count} other runs to the trash?
{names}</source>
        <translation>把其他 {count} 次运行移到回收站？
{names}</translation>
    </message>
    <message>
        <source>Pause after this job</source>
        <translation>此任务后暂停</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Queue this job (× the variations) to run unattended in the Queue panel</source>
        <translation>把这个任务（× 变体数）加入队列，在“队列”面板中无人值守地运行</translation>
    </message>
    <message>
        <source>Queue: {message}</source>
        <translation>队列：{message}</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Resume the queue</source>
        <translation>恢复队列</translation>
    </message>
    <message>
        <source>Run queue</source>
        <translation>运行队列</translation>
    </message>
    <message>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Stop after the current step and free the GPU now</source>
        <translation>在当前步骤之后停止，立即释放 GPU</translation>
    </message>
    <message>
        <source>Suspend the queue</source>
        <translation>挂起队列</translation>
    </message>
    <message>
        <source>The queue has {count} unfinished jobs (an interrupted one resumes from its last finished step). Continue the queue now?</source>
        <translation>队列中有 {count} 个未完成的任务（被中断的任务会从最后完成的步骤继续）。现在继续运行队列吗？</translation>
    </message>
    <message>
        <source>The results of the selected jobs (or of the selected job's variations)</source>
        <translation>所选任务的结果（或所选任务的各个变体的结果）</translation>
    </message>
    <message>
        <source>Use as new image</source>
        <translation>用作新图像</translation>
    </message>
    <message>
        <source>Variations: one job per seed</source>
        <translation>变体：每个种子一个任务</translation>
    </message>
    <message>
        <source>about {time} left</source>
        <translation>约剩 {time}</translation>
    </message>
    <message>
        <source>accepted at step {step}</source>
        <translation>已在第 {step} 步接受</translation>
    </message>
    <message>
        <source>accepted at {step} of {steps}</source>
        <translation>已在第 {step}/{steps} 步接受</translation>
    </message>
    <message>
        <source>done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>paused after the job in hand</source>
        <translation>当前任务之后暂停</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>random seeds</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>seed {seed}</source>
        <translation>种子 {seed}</translation>
    </message>
    <message>
        <source>step {step} of {steps}</source>
        <translation>第 {step}/{steps} 步</translation>
    </message>
    <message>
        <source>{count} job(s) added to the queue.</source>
        <translation>已将 {count} 个任务加入队列。</translation>
    </message>
    <message>
        <source>1 job, {left} to run</source>
        <translation>1 个任务，{left} 个待运行</translation>
    </message>
    <message>
        <source>{count} jobs, {left} to run</source>
        <translation>{count} 个任务，{left} 个待运行</translation>
    </message>
    <message>
        <source>{hours} h {minutes} min</source>
        <translation>{hours} 小时 {minutes} 分钟</translation>
    </message>
    <message>
        <source>{minutes} min</source>
        <translation>{minutes} 分钟</translation>
    </message>
    <message>
        <source>{prompt} (seed {seed})</source>
        <translation>{prompt}（种子 {seed}）</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Accept this step</source>
        <translation>接受这一步</translation>
    </message>
    <message>
        <source>Finish the run from this step (decoded and composited); skip the later steps</source>
        <translation>从这一步完成运行（解码并合成）；跳过之后的步骤</translation>
    </message>
</context>
<context>
    <name>WorkspaceHistory</name>
    <message>
        <source>Result, accepted at step {step}</source>
        <translation>结果（在第 {step} 步接受）</translation>
    </message>
</context>
</TS>
