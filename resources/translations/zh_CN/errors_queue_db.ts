<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>Add fewer variations per prompt, or split the prompt list.</source>
        <translation>请减少每个提示词的变体数，或拆分提示词列表。</translation>
    </message>
    <message>
        <source>Check its permissions, or move it away and try again.</source>
        <translation>请检查它的权限，或把它移走后重试。</translation>
    </message>
    <message>
        <source>Check that the data folder is writable and has free space.</source>
        <translation>请检查数据文件夹可写且有剩余空间。</translation>
    </message>
    <message>
        <source>Check the queue with `{command}`; once it is right, delete {path} to stop this message.</source>
        <translation>请用 `{command}` 检查队列；确认无误后删除 {path}，此提示便不再出现。</translation>
    </message>
    <message>
        <source>Move that folder or file away (Stepwise never deletes it), then run the queue again.</source>
        <translation>请把那个文件夹或文件移走（Stepwise 从不删除它），然后再次运行队列。</translation>
    </message>
    <message>
        <source>Remove the refused jobs with `{command}` (the other jobs stay).</source>
        <translation>请用 `{command}` 移除被拒绝的任务（其他任务保留）。</translation>
    </message>
    <message>
        <source>The queue {path} cannot be used: {reason}.</source>
        <translation>无法使用队列 {path}：{reason}。</translation>
    </message>
    <message>
        <source>The queue {path} has format {found}, which this Stepwise does not know.</source>
        <translation>队列 {path} 的格式为 {found}，此版本的 Stepwise 无法识别。</translation>
    </message>
    <message>
        <source>The queue's job {id} is refused: {reason}.</source>
        <translation>队列中的任务 {id} 被拒绝：{reason}。</translation>
    </message>
    <message>
        <source>Use the Stepwise that made it, or move the queue folder away.</source>
        <translation>请使用创建它的 Stepwise 版本，或把队列文件夹移走。</translation>
    </message>
    <message>
        <source>{lines} prompt(s) × --variations {count} make {total} jobs; one add queues at most {most}.</source>
        <translation>{lines} 个提示词 × --variations {count} 共 {total} 个任务；一次添加最多排入 {most} 个。</translation>
    </message>
    <message>
        <source>{path} already holds files that are not a Stepwise run; the job's run folder goes there.</source>
        <translation>{path} 中已有不属于 Stepwise 运行的文件；该任务的运行文件夹要放在那里。</translation>
    </message>
    <message>
        <source>{path} cannot be read: {reason}.</source>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <source>{path} is larger than any file of its kind Stepwise writes.</source>
        <translation>{path} 比 Stepwise 写入的任何同类文件都大。</translation>
    </message>
    <message>
        <source>{path} is {what}, where Stepwise keeps a file of its own.</source>
        <translation>{path} 是{what}，而 Stepwise 在此处保存的是它自己的文件。</translation>
    </message>
    <message>
        <source>Move it away (Stepwise did not make it there) and try again.</source>
        <translation>请把它移走（它不是 Stepwise 放在那里的）后重试。</translation>
    </message>
    <message>
        <source>The queue's database was damaged; it was moved to {path} and {count} job(s) were salvaged from it.</source>
        <translation>队列数据库已损坏；它已被移到 {path}，并从中抢救出 {count} 个任务。</translation>
    </message>
    <message>
        <source>The old queue file was damaged; it is kept in {path} and {count} job(s) were read from it.</source>
        <translation>旧的队列文件已损坏；它保留在 {path}，并从中读出 {count} 个任务。</translation>
    </message>
    <message>
        <source>The queue's database {file} was found empty (0 bytes) while the queue held {expected} job(s); what was there is kept in {path} and {count} job(s) were salvaged from it.</source>
        <translation>队列数据库 {file} 被发现是空的（0 字节），而队列原有 {expected} 个任务；原有内容保留在 {path}，并从中抢救出 {count} 个任务。</translation>
    </message>
    <message>
        <source>The queue's database {file} was found missing while the queue held {expected} job(s); what was left is kept in {path} and {count} job(s) were salvaged from it.</source>
        <translation>队列数据库 {file} 不见了，而队列原有 {expected} 个任务；剩下的内容保留在 {path}，并从中抢救出 {count} 个任务。</translation>
    </message>
    <message>
        <source>The queue's database {file} holds {count} job(s) where {expected} were recorded: its -wal journal was removed or replaced while Stepwise had the queue open, and the jobs added since are lost.</source>
        <translation>队列数据库 {file} 只有 {count} 个任务，而记录为 {expected} 个：它的 -wal 日志在 Stepwise 打开队列时被删除或替换，此后添加的任务已丢失。</translation>
    </message>
    <message>
        <source>{path} is {what}, where Stepwise keeps a folder of its own.</source>
        <translation>{path} 是{what}，而 Stepwise 在此处保存的是它自己的文件夹。</translation>
    </message>
    <message>
        <source>Cannot write the engine's log {path}: {reason}.</source>
        <translation>无法写入引擎日志 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check that the run folder and its logs folder are writable folders.</source>
        <translation>请检查运行文件夹及其 logs 文件夹是可写的文件夹。</translation>
    </message>
</context>
</TS>
