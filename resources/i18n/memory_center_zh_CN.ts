<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>AbChart</name>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="54" />
        <source>Evidence recall</source>
        <translation>证据召回率</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="55" />
        <source>Precision of injected memory</source>
        <translation>注入记忆的精确率</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="56" />
        <source>Leakage (must be 0)</source>
        <translation>泄漏（必须为 0）</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="57" />
        <source>Stale citations</source>
        <translation>过期引用</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="58" />
        <source>Wrong adoption</source>
        <translation>错误采纳</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="59" />
        <source>Tokens injected per call</source>
        <translation>每次调用注入的词元数</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="60" />
        <source>Latency p50 (ms)</source>
        <translation>延迟 p50（毫秒）</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="119" />
        <source>Comparison chart</source>
        <translation>对比图</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="154" />
        <source>Open a result to see the comparison.</source>
        <translation>打开一个结果以查看对比。</translation>
    </message>
</context>
<context>
    <name>AbComparisonDialog</name>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="209" />
        <source>Memory A/B comparison</source>
        <translation>记忆 A/B 对比</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="212" />
        <source>Compare configurations of memory (for example memory on and off) on recorded sessions. Create a result with: memory-center eval ab --transcripts DIR --policy A.json --policy B.json --out result.json</source>
        <translation>在录制的会话上比较不同的记忆配置（例如开启与关闭记忆）。生成结果的命令：memory-center eval ab --transcripts DIR --policy A.json --policy B.json --out result.json</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="219" />
        <source>Open result…</source>
        <translation>打开结果…</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="221" />
        <source>Run on recorded sessions…</source>
        <translation>在录制的会话上运行…</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="224" />
        <source>Choose a folder of recorded sessions, then two or more configuration files; each session is replayed under each configuration (this takes a while).</source>
        <translation>先选择录制会话所在的文件夹，再选择两个或更多配置文件；每个会话会在每种配置下重放（需要一些时间）。</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="237" />
        <source>Comparison table</source>
        <translation>对比表</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="252" />
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="266" />
        <source>Open an A/B result</source>
        <translation>打开 A/B 结果</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="268" />
        <location filename="../../ui/views/ab_chart.py" line="284" />
        <source>JSON files (*.json);;All files (*)</source>
        <translation>JSON 文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="276" />
        <source>Folder of recorded sessions</source>
        <translation>录制会话所在的文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="282" />
        <source>Configurations to compare (two or more)</source>
        <translation>要比较的配置（两个或更多）</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="295" />
        <source>Choose two or more configuration files to compare.</source>
        <translation>请选择两个或更多配置文件进行比较。</translation>
    </message>
    <message>
        <location filename="../../ui/views/ab_chart.py" line="299" />
        <source>Replaying the recorded sessions… this takes a while.</source>
        <translation>正在重放录制的会话…需要一些时间。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/ab_chart.py" line="344" />
        <source>%1 — %n recorded session(s)</source>
        <translation><numerusform>%1 — %n 个录制的会话</numerusform></translation>
    </message>
</context>
<context>
    <name>Actor</name>
    <message>
        <location filename="../../ui/presentation.py" line="96" />
        <source>you</source>
        <translation>您</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="97" />
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="98" />
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="99" />
        <source>system</source>
        <translation>系统</translation>
    </message>
</context>
<context>
    <name>Agents</name>
    <message>
        <location filename="../../ui/agent_identity.py" line="35" />
        <source>an SDK runtime</source>
        <translation>一个 SDK 运行时</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="37" />
        <source>%1 (SDK runtime)</source>
        <translation>%1（SDK 运行时）</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="38" />
        <source>%1 (MCP client)</source>
        <translation>%1（MCP 客户端）</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="39" />
        <source>%1 (hooks)</source>
        <translation>%1（钩子）</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="40" />
        <source>%1 (import)</source>
        <translation>%1（导入）</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="53" />
        <source>Codex</source>
        <translation>Codex</translation>
    </message>
</context>
<context>
    <name>AgentsPanel</name>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="42" />
        <source>Connected agents</source>
        <translation>已连接的智能体</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="46" />
        <source>Claude Code hooks</source>
        <translation>Claude Code 钩子</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="48" />
        <source>Live capture</source>
        <translation>实时采集</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="50" />
        <source>Compare memory on and off (A/B)…</source>
        <translation>比较开启与关闭记忆（A/B）…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="53" />
        <source>Is memory worth it?</source>
        <translation>记忆值得吗？</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="72" />
        <source>With the hooks, Claude Code gets relevant memories with each prompt and records its sessions here as they happen (the same as memory-center hook install claude-code).</source>
        <translation>安装钩子后，Claude Code 在每次提问时获得相关记忆，并把会话实时记录到这里（与 memory-center hook install claude-code 相同）。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="98" />
        <source>Install</source>
        <translation>安装</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="84" />
        <source>Install hooks in your user settings</source>
        <translation>在您的用户设置中安装钩子</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="83" />
        <source>&amp;Install</source>
        <translation>安装(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="85" />
        <location filename="../../ui/views/settings/agents.py" line="100" />
        <source>Uninstall</source>
        <translation>卸载</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="86" />
        <source>Uninstall hooks from your user settings</source>
        <translation>从您的用户设置中卸载钩子</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="92" />
        <source>Project folder</source>
        <translation>项目文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="93" />
        <source>a project folder (for its own settings)</source>
        <translation>项目文件夹（用于该项目自己的设置）</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="99" />
        <source>Install hooks in the project</source>
        <translation>在项目中安装钩子</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="101" />
        <source>Uninstall hooks from the project</source>
        <translation>从项目中卸载钩子</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="119" />
        <source>Problem of the Claude Code hooks</source>
        <translation>Claude Code 钩子的问题</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="134" />
        <location filename="../../ui/views/settings/agents.py" line="298" />
        <source>Not available in this window.</source>
        <translation>此窗口中不可用。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="140" />
        <source>Your user settings</source>
        <translation>您的用户设置</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="156" />
        <source>Claude Code's hooks could not open this store (last try %1), so Claude Code works without memory and nothing it does is recorded.</source>
        <translation>Claude Code 的钩子无法打开此存储（最近一次尝试：%1），因此 Claude Code 在没有记忆的情况下工作，它所做的一切都不会被记录。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="160" />
        <source>Details: %1</source>
        <translation>详情：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="170" />
        <source>The passphrase in Claude Code's environment does not open this store. Correct MEMORY_CENTER_PASSPHRASE where you start Claude Code (your shell profile, or the "env" section of Claude Code's settings), then start a new Claude Code session.</source>
        <translation>Claude Code 环境中的口令无法打开此存储。请在启动 Claude Code 的地方（您的 shell 配置文件，或 Claude Code 设置中的 "env" 部分）更正 MEMORY_CENTER_PASSPHRASE，然后开始一个新的 Claude Code 会话。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="177" />
        <source>Claude Code starts the hooks without this store's passphrase, and the system keyring does not hold its key. Set MEMORY_CENTER_PASSPHRASE in the environment you start Claude Code from (your shell profile, or the "env" section of Claude Code's settings), then start a new Claude Code session.</source>
        <translation>Claude Code 启动钩子时没有此存储的口令，系统密钥环中也没有它的密钥。请在启动 Claude Code 的环境中（您的 shell 配置文件，或 Claude Code 设置中的 "env" 部分）设置 MEMORY_CENTER_PASSPHRASE，然后开始一个新的 Claude Code 会话。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="184" />
        <source>The hooks run an older Memory Center than the one that wrote this store. Install the hooks again from this window (Install above) so they run this version.</source>
        <translation>钩子运行的 Memory Center 比写入此存储的版本旧。请在此窗口中重新安装钩子（上方的“安装”），让它们运行此版本。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="190" />
        <source>The store failed an integrity check. Run memory-center verify in a terminal to see what is damaged.</source>
        <translation>存储未通过完整性检查。请在终端中运行 memory-center verify 查看哪里损坏。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="195" />
        <source>Something the store needs was busy or out of reach. The hooks try again by themselves at the next session; if this stays, check the details below.</source>
        <translation>存储所需的某项资源正忙或无法访问。钩子会在下一个会话中自行重试；如果问题持续，请查看下面的详情。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="199" />
        <source>Check the details below; memory-center hook status shows what the hooks see.</source>
        <translation>请查看下面的详情；memory-center hook status 会显示钩子看到的情况。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="205" />
        <source>Choose a project folder to install the hooks for that project only.</source>
        <translation>选择一个项目文件夹，只为该项目安装钩子。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="214" />
        <source>Project %1</source>
        <translation>项目 %1</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="230" />
        <source>%1: not installed</source>
        <translation>%1：未安装</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/settings/agents.py" line="231" />
        <source>%1: installed for %n event(s)</source>
        <translation><numerusform>%1：已为 %n 个事件安装</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="259" />
        <source>Claude Code hooks installed in %1.</source>
        <translation>Claude Code 钩子已安装到 %1。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="261" />
        <source>Claude Code hooks removed from %1.</source>
        <translation>已从 %1 移除 Claude Code 钩子。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="273" />
        <source>Capture follows the agent's session files while Memory Center is open and records new conversation from the moment you turn it on (earlier sessions: File → Import transcripts…). To capture while Memory Center is closed, run memory-center watch claude-code (or codex) in a terminal.</source>
        <translation>实时采集在记忆中心打开期间跟踪智能体的会话文件，从您开启的那一刻起记录新的对话（更早的会话：文件 → 导入对话记录…）。若要在记忆中心关闭时也采集，请在终端运行 memory-center watch claude-code（或 codex）。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="287" />
        <source>Capture from %1</source>
        <translation>从 %1 采集</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="292" />
        <source>Captured from %1</source>
        <translation>从 %1 采集的内容</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/agents.py" line="327" />
        <source>Capture from %1 stopped: %2</source>
        <translation>从 %1 的采集已停止：%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/settings/agents.py" line="344" />
        <source>%n event(s) captured</source>
        <translation><numerusform>已采集 %n 个事件</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/settings/agents.py" line="346" />
        <source>%n file(s) followed</source>
        <translation><numerusform>跟踪 %n 个文件</numerusform></translation>
    </message>
</context>
<context>
    <name>AgentsView</name>
    <message>
        <location filename="../../ui/views/agents_view.py" line="112" />
        <location filename="../../ui/views/agents_view.py" line="122" />
        <source>Agents</source>
        <translation>智能体</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="116" />
        <source>Each client that used your memory: what it wrote (events) and what it read (model calls and the memories they were given).</source>
        <translation>使用过您记忆的每个客户端：它写入了什么（事件），读取了什么（模型调用及其收到的记忆）。</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="125" />
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="126" />
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="127" />
        <source>Events written</source>
        <translation>写入的事件</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="128" />
        <source>Model calls</source>
        <translation>模型调用</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="129" />
        <source>Memories read</source>
        <translation>读取的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="130" />
        <source>Last active</source>
        <translation>最近活动</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="131" />
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="141" />
        <location filename="../../ui/views/agents_view.py" line="200" />
        <source>Pause memory for this agent</source>
        <translation>暂停此智能体的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="144" />
        <source>Turns memory off for this agent: nothing is injected into any of its sessions, new ones included, until you resume it.</source>
        <translation>关闭此智能体的记忆：不再向它的任何会话注入记忆，包括以后的新会话，直到你恢复为止。</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="169" />
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="169" />
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="198" />
        <source>Resume memory for this agent</source>
        <translation>恢复此智能体的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="210" />
        <source>Memory paused for %1.</source>
        <translation>已暂停 %1 的记忆。</translation>
    </message>
    <message>
        <location filename="../../ui/views/agents_view.py" line="210" />
        <source>Memory resumed for %1.</source>
        <translation>已恢复 %1 的记忆。</translation>
    </message>
</context>
<context>
    <name>BackupPanel</name>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="31" />
        <source>Backup and transfer</source>
        <translation>备份与迁移</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="35" />
        <source>Export the active and suggested memories to a JSON file, or import such a file; imported memories arrive as suggestions in the review queue.</source>
        <translation>将已生效和待审核的记忆导出为 JSON 文件，或导入此类文件；导入的记忆会作为建议进入审核队列。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="41" />
        <source>Export memories…</source>
        <translation>导出记忆…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="43" />
        <source>Write the memories' text to a JSON file. The file is not encrypted.</source>
        <translation>将记忆的文本写入 JSON 文件。该文件不加密。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="46" />
        <source>Import memories…</source>
        <translation>导入记忆…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="48" />
        <source>Read an export file; every memory becomes a suggestion the policy decides.</source>
        <translation>读取导出文件；每条记忆都会成为一条由记忆策略决定的建议。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="62" />
        <location filename="../../ui/views/settings/backup.py" line="91" />
        <source>Export memories</source>
        <translation>导出记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="64" />
        <location filename="../../ui/views/settings/backup.py" line="74" />
        <source>JSON files (*.json);;All files (*)</source>
        <translation>JSON 文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="72" />
        <source>Import memories</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="93" />
        <source>The export file is NOT encrypted: it holds the full text of your active and suggested memories in plain, readable JSON. Anyone who can read the file can read them. Keep it somewhere safe and delete it when you no longer need it.</source>
        <translation>导出文件【不加密】：它以明文、可直接阅读的 JSON 保存您已生效和待审核记忆的完整文本。任何能读取该文件的人都能看到这些记忆。请妥善保管，不再需要时请删除。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="100" />
        <source>Export to %1?</source>
        <translation>导出到 %1？</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="101" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="103" />
        <source>Confirm export</source>
        <translation>确认导出</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/settings/backup.py" line="115" />
        <source>%n memories exported to %2 (not encrypted).</source>
        <translation><numerusform>已导出 %n 条记忆到 %2（未加密）。</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="137" />
        <source>cannot be read as a JSON export file (%1)</source>
        <translation>无法作为 JSON 导出文件读取（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/backup.py" line="162" />
        <source>%1 imported: %2 suggested, %3 merged, %4 rejected</source>
        <translation>已导入 %1 条：%2 条建议，%3 条合并，%4 条拒绝</translation>
    </message>
</context>
<context>
    <name>DeleteDialog</name>
    <message>
        <location filename="../../ui/dialogs.py" line="244" />
        <source>Delete memory</source>
        <translation>删除记忆</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="244" />
        <source>Purge memory</source>
        <translation>清除记忆</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/dialogs.py" line="250" />
        <source>Also purge the %n source event(s) it came from</source>
        <translation><numerusform>同时清除它来源的 %n 个事件</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="252" />
        <source>Purge source events</source>
        <translation>清除来源事件</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="257" />
        <location filename="../../ui/dialogs.py" line="262" />
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="258" />
        <source>Also purge the content (compliance purge)</source>
        <translation>同时彻底清除内容（合规清除）</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="259" />
        <location filename="../../ui/dialogs.py" line="271" />
        <source>Purge</source>
        <translation>清除</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="265" />
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="280" />
        <source>“%1”</source>
        <translation>“%1”</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="282" />
        <source>This cannot be undone. Deleting will irreversibly:</source>
        <translation>此操作无法撤销。删除将不可逆地：</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="284" />
        <source>• remove it from the search index, keyword index and injection caches, so no agent can receive it again;</source>
        <translation>• 从检索索引、关键词索引和注入缓存中移除，任何智能体都不会再收到它；</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="288" />
        <source>• mark it deleted and keep a tombstone (id, scope, time, who, why, source event ids).</source>
        <translation>• 标记为已删除，并保留墓碑记录（编号、范围、时间、操作人、原因、来源事件）。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/dialogs.py" line="294" />
        <source>• destroy the text of all %n revision(s);</source>
        <translation><numerusform>• 销毁全部 %n 个版本的文本；</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/dialogs.py" line="296" />
        <source>• blank it out of the injected text of %n recorded model call(s);</source>
        <translation><numerusform>• 从 %n 次已记录模型调用的注入文本中抹去；</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="300" />
        <source>Only “existed, deleted at T” remains.</source>
        <translation>只保留“曾存在，于某时删除”。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="303" />
        <source>Its encrypted text stays in the history until purged.</source>
        <translation>在清除之前，其加密文本仍保留在历史中。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="317" />
        <source>Source event now: “%1”</source>
        <translation>来源事件现在：“%1”</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="318" />
        <source>After: [redacted] (the event stays in the log, its text is destroyed)</source>
        <translation>之后：[已脱敏]（事件仍在日志中，其文本被销毁）</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="320" />
        <source>After: unchanged (the source events keep their text)</source>
        <translation>之后：不变（来源事件保留其文本）</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="325" />
        <source>Give a reason; it is kept in the tombstone.</source>
        <translation>请填写原因；它会保存在墓碑记录中。</translation>
    </message>
</context>
<context>
    <name>Detail</name>
    <message>
        <location filename="../../ui/views/detail_text.py" line="22" />
        <source>No source events.</source>
        <translation>没有来源事件。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_text.py" line="28" />
        <source>(redacted)</source>
        <translation>（已脱敏）</translation>
    </message>
    <message>
        <location filename="../../ui/views/usage_trace.py" line="75" />
        <source>Never injected into a model call.</source>
        <translation>从未被注入到模型调用中。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/usage_trace.py" line="77" />
        <source>Injected %n time(s); last used %2.</source>
        <translation><numerusform>已注入 %n 次；最近一次使用于 %2。</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/views/usage_trace.py" line="87" />
        <source>no session</source>
        <translation>无会话</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_text.py" line="47" />
        <source>new, %1</source>
        <translation>新建，%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_text.py" line="50" />
        <source>%1, now %2</source>
        <translation>%1，现在%2</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_text.py" line="56" />
        <source>by %1</source>
        <translation>操作人 %1</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_text.py" line="72" />
        <source>(purged)</source>
        <translation>（已清除）</translation>
    </message>
</context>
<context>
    <name>DetailPanel</name>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="99" />
        <source>Memory status</source>
        <translation>记忆状态</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="106" />
        <source>Memory content</source>
        <translation>记忆内容</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="117" />
        <location filename="../../ui/views/detail_panel.py" line="321" />
        <source>Disable</source>
        <translation>停用</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="116" />
        <source>Narrow scope…</source>
        <translation>缩小范围…</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="118" />
        <source>Exclude…</source>
        <translation>排除…</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="119" />
        <source>Keep this memory out of one session's injections</source>
        <translation>不在某个会话中注入这条记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="120" />
        <source>Quarantine…</source>
        <translation>隔离…</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="121" />
        <location filename="../../ui/views/detail_panel.py" line="331" />
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="160" />
        <source>Source events</source>
        <translation>来源事件</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="161" />
        <source>Usage trace</source>
        <translation>使用记录</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="162" />
        <source>History of decisions</source>
        <translation>决策历史</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="163" />
        <source>Revisions</source>
        <translation>修订版本</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="193" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="194" />
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="195" />
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="196" />
        <source>Source trust</source>
        <translation>来源可信度</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="197" />
        <source>Valid</source>
        <translation>有效期</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="198" />
        <source>Said</source>
        <translation>说出时间</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="199" />
        <source>Speaker</source>
        <translation>说话人</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="200" />
        <source>Sensitivity</source>
        <translation>敏感度</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="201" />
        <source>Supersedes</source>
        <translation>取代关系</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="202" />
        <source>Conflict set</source>
        <translation>冲突组</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="203" />
        <source>Owner</source>
        <translation>所有者</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="204" />
        <source>Id</source>
        <translation>编号</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="226" />
        <source>Select a memory to see where it came from and how it is used.</source>
        <translation>选择一条记忆，查看它的来源和使用情况。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="251" />
        <source>(content purged)</source>
        <translation>（内容已清除）</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="271" />
        <source>from %1, expires %2</source>
        <translation>自 %1 起，到期：%2</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="280" />
        <source>%1, recorded %2</source>
        <translation>%1，记录于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="284" />
        <source>when recorded (%1)</source>
        <translation>即记录时（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="289" />
        <source>nothing sensitive found</source>
        <translation>未发现敏感内容</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="290" />
        <source>sensitive parts removed</source>
        <translation>敏感部分已移除</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="291" />
        <source>sensitive</source>
        <translation>敏感</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="297" />
        <source>supersedes</source>
        <translation>取代</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="301" />
        <source>superseded by</source>
        <translation>被取代于</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="310" />
        <source>in conflict with: </source>
        <translation>与之冲突：</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="315" />
        <source>wording version %1</source>
        <translation>措辞版本 %1</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="321" />
        <source>Enable</source>
        <translation>启用</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="331" />
        <source>Purge…</source>
        <translation>清除…</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="363" />
        <source>Memory disabled.</source>
        <translation>记忆已停用。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="370" />
        <source>Memory enabled.</source>
        <translation>记忆已启用。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="385" />
        <source>Scope narrowed.</source>
        <translation>范围已缩小。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="401" />
        <source>Excluded from the session.</source>
        <translation>已在该会话中排除。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="408" />
        <source>Included in the session again.</source>
        <translation>已重新纳入该会话。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="419" />
        <source>Quarantine memory</source>
        <translation>隔离记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="420" />
        <source>It will not be injected anywhere until you approve it again.</source>
        <translation>在你再次批准之前，它不会被注入到任何地方。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/detail_panel.py" line="430" />
        <source>Quarantined; %n session(s) had used it.</source>
        <translation><numerusform>已隔离；曾有 %n 个会话使用过它。</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="443" />
        <source>Quarantine undone.</source>
        <translation>已撤销隔离。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="461" />
        <source>Memory deleted.</source>
        <translation>记忆已删除。</translation>
    </message>
    <message>
        <location filename="../../ui/views/detail_panel.py" line="461" />
        <source>Memory purged.</source>
        <translation>记忆已清除。</translation>
    </message>
</context>
<context>
    <name>EditDialog</name>
    <message>
        <location filename="../../ui/dialogs.py" line="107" />
        <source>Edit memory</source>
        <translation>编辑记忆</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="108" />
        <source>Change the wording. The old wording stays in the history.</source>
        <translation>修改措辞。旧的措辞会保留在历史中。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="112" />
        <source>Memory text</source>
        <translation>记忆文本</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="113" />
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="115" />
        <source>Ctrl+Enter saves.</source>
        <translation>按 Ctrl+Enter 保存。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="124" />
        <source>The text is empty.</source>
        <translation>文本为空。</translation>
    </message>
</context>
<context>
    <name>EditMenu</name>
    <message>
        <location filename="../../ui/undo_history.py" line="176" />
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="178" />
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="181" />
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="185" />
        <source>Undo &amp;history…</source>
        <translation>撤销历史(&amp;H)…</translation>
    </message>
</context>
<context>
    <name>Embedder</name>
    <message>
        <location filename="../../ui/presentation.py" line="154" />
        <source>Word hashing (no model, fastest)</source>
        <translation>词哈希（无模型，最快）</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="155" />
        <source>Multilingual e5 (recommended)</source>
        <translation>多语言 e5（推荐）</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="156" />
        <source>English MiniLM</source>
        <translation>英文 MiniLM</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="157" />
        <source>WordLlama (English, light)</source>
        <translation>WordLlama（英文，轻量）</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="158" />
        <source>Multilingual e5 + English MiniLM</source>
        <translation>多语言 e5 + 英文 MiniLM</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="173" />
        <source>It needs the Python packages: %1.</source>
        <translation>需要安装 Python 包：%1。</translation>
    </message>
</context>
<context>
    <name>Error</name>
    <message>
        <location filename="../../ui/errors.py" line="18" />
        <source>Some of what was entered is not valid.</source>
        <translation>输入的内容有误。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="21" />
        <source>A scope is needed (who or what it applies to).</source>
        <translation>需要范围（适用于谁或什么）。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="24" />
        <source>It was not found; it may have been deleted.</source>
        <translation>没有找到；它可能已被删除。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="27" />
        <source>This cannot be done to it in its current state.</source>
        <translation>在当前状态下不能进行此操作。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="30" />
        <source>Someone else changed it at the same time; try again.</source>
        <translation>它同时被别处修改了；请重试。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="33" />
        <source>The memory policy does not allow this.</source>
        <translation>记忆策略不允许这样做。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="36" />
        <source>Something needed is not available.</source>
        <translation>所需的资源不可用。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="37" />
        <source>The store's key is not available.</source>
        <translation>记忆库的密钥不可用。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="38" />
        <source>That passphrase is wrong.</source>
        <translation>口令不正确。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="39" />
        <source>This store was made by a newer Memory Center.</source>
        <translation>此记忆库由更新版本的记忆中心创建。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="42" />
        <source>The store failed an integrity check.</source>
        <translation>记忆库未通过完整性检查。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="43" />
        <source>The database server cannot be reached.</source>
        <translation>无法连接数据库服务器。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="46" />
        <source>The server cannot be reached: the change waits on this computer and is applied when it returns.</source>
        <translation>无法连接服务器：此更改保存在本机，服务器恢复后应用。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="52" />
        <source>Memory Center could not do this.</source>
        <translation>记忆中心无法完成此操作。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="57" />
        <source>Memory Center</source>
        <translation>记忆中心</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="61" />
        <source>Something unexpected went wrong.</source>
        <translation>发生了意外错误。</translation>
    </message>
    <message>
        <location filename="../../ui/errors.py" line="65" />
        <source>Error message</source>
        <translation>错误消息</translation>
    </message>
</context>
<context>
    <name>EventKind</name>
    <message>
        <location filename="../../ui/presentation.py" line="124" />
        <source>message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="125" />
        <source>tool call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="126" />
        <source>tool result</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="127" />
        <source>conversation shortened</source>
        <translation>对话已压缩</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="128" />
        <source>permission</source>
        <translation>权限</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="129" />
        <source>branch</source>
        <translation>分支</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="130" />
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="131" />
        <source>observation</source>
        <translation>观察</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="132" />
        <source>memory decision</source>
        <translation>记忆决策</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="133" />
        <source>security</source>
        <translation>安全</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="134" />
        <source>memory unavailable</source>
        <translation>记忆不可用</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="135" />
        <source>agent call</source>
        <translation>智能体调用</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="136" />
        <source>redaction</source>
        <translation>脱敏</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="144" />
        <source>memory was unavailable; the agent went on without it</source>
        <translation>记忆不可用；智能体在没有记忆的情况下继续</translation>
    </message>
</context>
<context>
    <name>Events</name>
    <message>
        <location filename="../../ui/models/event_table.py" line="31" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/models/event_table.py" line="32" />
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/models/event_table.py" line="33" />
        <source>Actor</source>
        <translation>发出者</translation>
    </message>
    <message>
        <location filename="../../ui/models/event_table.py" line="34" />
        <source>Trust</source>
        <translation>可信度</translation>
    </message>
    <message>
        <location filename="../../ui/models/event_table.py" line="35" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../ui/models/event_table.py" line="36" />
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../../ui/models/event_table.py" line="120" />
        <source>(redacted)</source>
        <translation>（已脱敏）</translation>
    </message>
</context>
<context>
    <name>ImportDialog</name>
    <message>
        <location filename="../../ui/transcript_import.py" line="35" />
        <source>Import transcripts</source>
        <translation>导入对话记录</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="37" />
        <source>Import agent transcripts into the event log. Suggested memories go to the review queue; importing the same transcripts again adds nothing twice.</source>
        <translation>将智能体对话记录导入事件日志。建议的记忆会进入审核队列；重复导入同一记录不会重复添加。</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="44" />
        <location filename="../../ui/transcript_import.py" line="56" />
        <source>Importer</source>
        <translation>导入器</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="46" />
        <source>Transcript file or folder</source>
        <translation>对话记录文件或文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="47" />
        <source>A .jsonl / conversations.json file or a folder</source>
        <translation>.jsonl / conversations.json 文件或文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="48" />
        <source>File…</source>
        <translation>文件…</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="50" />
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="57" />
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="61" />
        <source>Transcript file</source>
        <translation>对话记录文件</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="61" />
        <source>Transcripts (*.jsonl *.json);;All (*)</source>
        <translation>对话记录 (*.jsonl *.json);;全部 (*)</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="67" />
        <source>Transcript folder</source>
        <translation>对话记录文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="78" />
        <source>No importer is available.</source>
        <translation>没有可用的导入器。</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="80" />
        <source>Choose a file or a folder.</source>
        <translation>请选择文件或文件夹。</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="82" />
        <source>That file or folder does not exist.</source>
        <translation>该文件或文件夹不存在。</translation>
    </message>
</context>
<context>
    <name>IndexPanel</name>
    <message>
        <location filename="../../ui/views/settings/index.py" line="34" />
        <source>Search index</source>
        <translation>检索索引</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="39" />
        <source>Embedder</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="40" />
        <source>Vectors</source>
        <translation>向量</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="41" />
        <source>Conversation windows</source>
        <translation>对话窗口</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="42" />
        <source>Keyword documents</source>
        <translation>关键词文档</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="46" />
        <source>Embed each recorded turn with the turns around it</source>
        <translation>把每条记录的发言与其前后的发言一起嵌入</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="49" />
        <source>Finds more of what a long conversation taught. Costs about three times the embedding work of an imported history, in the background; switching it off drops the stored windows.</source>
        <translation>能从长对话中找到更多内容。导入历史时后台嵌入的工作量约为原来的三倍；关闭后会丢弃已存储的窗口。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="57" />
        <source>Embedder to use</source>
        <translation>要使用的嵌入模型</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="65" />
        <source>Use and rebuild</source>
        <translation>使用并重建</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="68" />
        <source>Switch the embedder and rebuild the vector index with it. Some embedders need an optional package; a model may take a while to load.</source>
        <translation>切换嵌入模型并用它重建向量索引。有些嵌入模型需要可选的软件包；加载模型可能需要一些时间。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="78" />
        <source>Use embedder</source>
        <translation>使用嵌入模型</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="80" />
        <source>Rebuild indexes</source>
        <translation>重建索引</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="82" />
        <source>Throw away the keyword and vector indexes and rebuild them from the store.</source>
        <translation>丢弃关键词索引和向量索引，并从存储中重建。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="94" />
        <source>Rebuilding the index</source>
        <translation>正在重建索引</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="109" />
        <source>unknown embedder</source>
        <translation>未知的嵌入模型</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="112" />
        <source>Not installed on this computer.</source>
        <translation>此电脑上未安装。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="128" />
        <location filename="../../ui/views/settings/index.py" line="139" />
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="136" />
        <source>none (keyword search only)</source>
        <translation>无（仅关键词检索）</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="148" />
        <source>%1 (%2 waiting)</source>
        <translation>%1（%2 个等待中）</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="167" />
        <source>Loading %1 and rebuilding the vector index… this can take a while.</source>
        <translation>正在加载 %1 并重建向量索引……这可能需要一些时间。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="175" />
        <source>Now searching with %1; the vector index was rebuilt.</source>
        <translation>现在使用 %1 检索；向量索引已重建。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="189" />
        <source>Conversation windows on: turns are embedded with their neighbours.</source>
        <translation>对话窗口已开启：发言会与其相邻发言一起嵌入。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="191" />
        <source>Conversation windows off: the stored windows were dropped.</source>
        <translation>对话窗口已关闭：已存储的窗口已被丢弃。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="202" />
        <source>Rebuilding the indexes…</source>
        <translation>正在重建索引…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/index.py" line="207" />
        <source>Indexes rebuilt.</source>
        <translation>索引已重建。</translation>
    </message>
</context>
<context>
    <name>InviteDialog</name>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="60" />
        <source>Invite a member's device</source>
        <translation>邀请成员的设备</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="62" />
        <source>Writes an invitation file that lets one device join this store. Its one-time code is shown next; send the file and the code by different channels.</source>
        <translation>写入一个邀请文件，让一台设备加入此存储。接下来会显示一次性代码；请通过不同渠道发送文件和代码。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="69" />
        <location filename="../../ui/views/settings/team_dialogs.py" line="73" />
        <source>Member name</source>
        <translation>成员名称</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="70" />
        <source>e.g. kim-laptop</source>
        <translation>例如 kim-laptop</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="72" />
        <location filename="../../ui/views/settings/team_dialogs.py" line="74" />
        <source>Invitation file</source>
        <translation>邀请文件</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="94" />
        <source>Give the member a name.</source>
        <translation>请为成员命名。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="97" />
        <source>Choose where to write the invitation file.</source>
        <translation>请选择邀请文件的保存位置。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="99" />
        <source>The folder %1 does not exist.</source>
        <translation>文件夹 %1 不存在。</translation>
    </message>
</context>
<context>
    <name>JoinDialog</name>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="115" />
        <source>Join a team store</source>
        <translation>加入团队存储</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="117" />
        <source>Use an invitation file and its one-time code to join a store on a database server from this computer. The joined store gets its own data directory.</source>
        <translation>使用邀请文件及其一次性代码，让这台电脑加入数据库服务器上的存储。加入的存储有自己的数据目录。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="122" />
        <location filename="../../ui/views/settings/team_dialogs.py" line="132" />
        <source>Invitation file</source>
        <translation>邀请文件</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="124" />
        <location filename="../../ui/views/settings/team_dialogs.py" line="133" />
        <source>One-time code</source>
        <translation>一次性代码</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="125" />
        <source>Data directory of the joined store</source>
        <translation>加入的存储的数据目录</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="130" />
        <source>Passphrase for the key on this computer</source>
        <translation>此电脑上密钥的口令</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="131" />
        <source>empty: keep the key in the system keyring</source>
        <translation>留空：密钥保存在系统钥匙串中</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="134" />
        <source>Data directory</source>
        <translation>数据目录</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="135" />
        <source>Key passphrase</source>
        <translation>密钥口令</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="145" />
        <source>Choose the invitation file.</source>
        <translation>请选择邀请文件。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="147" />
        <source>Type the one-time code that came with the invitation.</source>
        <translation>请输入随邀请一起收到的一次性代码。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="149" />
        <source>Choose a data directory for the joined store.</source>
        <translation>请为加入的存储选择数据目录。</translation>
    </message>
</context>
<context>
    <name>KeyPanel</name>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="21" />
        <source>Encryption key</source>
        <translation>加密密钥</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="26" />
        <source>Key held in</source>
        <translation>密钥保存在</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="27" />
        <source>Active key id</source>
        <translation>当前密钥编号</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="28" />
        <source>Key ids</source>
        <translation>密钥编号</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="32" />
        <source>Rotate key…</source>
        <translation>轮换密钥…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="35" />
        <source>Re-encrypt every event, memory and snapshot under a new key. Can be stopped and resumed.</source>
        <translation>用新密钥重新加密所有事件、记忆和快照。可以暂停后继续。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="48" />
        <source>the operating system keyring</source>
        <translation>操作系统钥匙串</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="49" />
        <source>a passphrase-protected key file</source>
        <translation>受口令保护的密钥文件</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="59" />
        <source>Rotate the encryption key</source>
        <translation>轮换加密密钥</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="61" />
        <source>Re-encrypt every event, memory and snapshot under a new key? The old key is kept until everything is re-encrypted. On a large store this takes a while; you can stop and continue later.</source>
        <translation>要用新密钥重新加密所有事件、记忆和快照吗？在全部重新加密之前会保留旧密钥。记忆库较大时需要一些时间；可以中途停止，稍后继续。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="68" />
        <source>Rotate key</source>
        <translation>轮换密钥</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="69" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="71" />
        <source>Confirm key rotation</source>
        <translation>确认轮换密钥</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/keys.py" line="83" />
        <source>Key rotated: %1 rows re-encrypted under %2.</source>
        <translation>密钥已轮换：%1 行已用 %2 重新加密。</translation>
    </message>
</context>
<context>
    <name>Keys</name>
    <message>
        <location filename="../../ui/operations/keys.py" line="23" />
        <source>Re-encrypting the store under a new key…</source>
        <translation>正在用新密钥重新加密存储…</translation>
    </message>
    <message>
        <location filename="../../ui/operations/keys.py" line="24" />
        <source>rows re-encrypted</source>
        <translation>行已重新加密</translation>
    </message>
</context>
<context>
    <name>Kind</name>
    <message>
        <location filename="../../ui/presentation.py" line="53" />
        <source>preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="54" />
        <source>fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="55" />
        <source>convention</source>
        <translation>约定</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="56" />
        <source>decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="57" />
        <source>skill suggestion</source>
        <translation>技能建议</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../ui/main_window.py" line="107" />
        <location filename="../../ui/main_window.py" line="233" />
        <location filename="../../ui/shell.py" line="46" />
        <source>Memory Center</source>
        <translation>记忆中心</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="109" />
        <source>Memory Center main window</source>
        <translation>记忆中心主窗口</translation>
    </message>
    <message>
        <location filename="../../ui/shell.py" line="33" />
        <source>Navigation</source>
        <translation>导航</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="218" />
        <location filename="../../ui/shell.py" line="21" />
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <location filename="../../ui/shell.py" line="22" />
        <source>Review queue</source>
        <translation>待审队列</translation>
    </message>
    <message>
        <location filename="../../ui/shell.py" line="23" />
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/shell.py" line="24" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="274" />
        <source>Locked</source>
        <translation>已锁定</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="275" />
        <source>Memory Center is locked</source>
        <translation>记忆中心已锁定</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="280" />
        <source>The store is closed and its key is out of memory. Unlock it with the passphrase to continue.</source>
        <translation>存储已关闭，密钥已从内存中清除。请输入口令解锁以继续。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="286" />
        <source>Unlock…</source>
        <translation>解锁…</translation>
    </message>
    <message>
        <location filename="../../ui/status_bar.py" line="23" />
        <source>Last action</source>
        <translation>最近操作</translation>
    </message>
    <message>
        <location filename="../../ui/status_bar.py" line="54" />
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="63" />
        <source>key in the system keyring</source>
        <translation>密钥保存在系统钥匙串中</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="64" />
        <source>key protected by a passphrase</source>
        <translation>密钥由口令保护</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="66" />
        <source>key loaded</source>
        <translation>密钥已载入</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="105" />
        <location filename="../../ui/main_window.py" line="231" />
        <source>Memory Center — DEMO store (sample data, not yours)</source>
        <translation>记忆中心 — 演示库（示例数据，不是您的）</translation>
    </message>
    <message>
        <location filename="../../ui/status_bar.py" line="55" />
        <source>DEMO store</source>
        <translation>演示库</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="238" />
        <source>The language was changed.</source>
        <translation>界面语言已切换。</translation>
    </message>
    <message>
        <location filename="../../ui/shell.py" line="25" />
        <source>Agents</source>
        <translation>智能体</translation>
    </message>
    <message>
        <location filename="../../ui/status_bar.py" line="29" />
        <source>Undo last action</source>
        <translation>撤销上一步操作</translation>
    </message>
    <message>
        <location filename="../../ui/status_bar.py" line="34" />
        <source>Store status</source>
        <translation>存储状态</translation>
    </message>
    <message>
        <location filename="../../ui/status_bar.py" line="43" />
        <source>Sample memories of made-up people, kept apart from your own store.</source>
        <translation>虚构人物的示例记忆，与您自己的记忆库分开保存。</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="311" />
        <location filename="../../app/gui_start.py" line="78" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="313" />
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="316" />
        <source>&amp;Import transcripts…</source>
        <translation>导入对话记录(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="318" />
        <source>&amp;Lock</source>
        <translation>锁定(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="321" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="326" />
        <source>Leave the demo: use my own store</source>
        <translation>离开演示：使用我自己的记忆库</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="335" />
        <location filename="../../app/gui_start.py" line="79" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="80" />
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="357" />
        <source>No transcript importers were installed with this window</source>
        <translation>此窗口未安装对话记录导入器</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="362" />
        <source>Locking is not available here (nothing could unlock the store again)</source>
        <translation>此处无法锁定（没有可重新解锁存储的方式）</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="365" />
        <source>Lock applies to a passphrase-protected key; this store's key comes from %1</source>
        <translation>锁定仅适用于受口令保护的密钥；此存储的密钥来自 %1</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="366" />
        <source>an unknown source</source>
        <translation>未知来源</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="368" />
        <source>Close the store and forget the key until the passphrase is given</source>
        <translation>关闭存储并清除密钥，直到再次输入口令</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/main_window.py" line="459" />
        <source>%n suggestion(s)</source>
        <translation><numerusform>%n 条建议</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/main_window.py" line="460" />
        <source>%n conflict(s)</source>
        <translation><numerusform>%n 组冲突</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/main_window.py" line="461" />
        <source>%n quarantined</source>
        <translation><numerusform>%n 条已隔离</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="463" />
        <source>Waiting for you: %1</source>
        <translation>等待您处理：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/main_window.py" line="481" />
        <source>%n events recorded</source>
        <translation><numerusform>已记录 %n 个事件</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="530" />
        <source>locked</source>
        <translation>已锁定</translation>
    </message>
</context>
<context>
    <name>OfflineBadge</name>
    <message>
        <location filename="../../ui/live.py" line="28" />
        <source>Server connection</source>
        <translation>服务器连接</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/live.py" line="35" />
        <source>offline, %n change(s) waiting</source>
        <translation><numerusform>离线，%n 项更改等待同步</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/live.py" line="37" />
        <source>offline</source>
        <translation>离线</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/live.py" line="39" />
        <source>%n change(s) waiting to be sent</source>
        <translation><numerusform>%n 项更改等待发送</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/live.py" line="46" />
        <source>The database server cannot be reached. Changes made here wait on this computer and are applied, in order, when it returns.</source>
        <translation>无法连接数据库服务器。在这里所做的更改会保存在本机，服务器恢复后按顺序应用。</translation>
    </message>
</context>
<context>
    <name>PassphraseDialog</name>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="55" />
        <source>Unlock Memory Center</source>
        <translation>解锁记忆中心</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="55" />
        <source>Protect your memories</source>
        <translation>保护您的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="57" />
        <location filename="../../ui/passphrase_dialog.py" line="72" />
        <location filename="../../ui/passphrase_dialog.py" line="82" />
        <source>Passphrase</source>
        <translation>口令</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="63" />
        <source>No OS keyring is available. Choose a passphrase (at least 8 characters) that protects the key of your memory store.</source>
        <translation>没有可用的系统钥匙串。请设置一个口令（至少 8 个字符）来保护记忆库的密钥。</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="67" />
        <source>Enter the passphrase of your memory store.</source>
        <translation>请输入记忆库的口令。</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="75" />
        <source>Repeat passphrase</source>
        <translation>再次输入口令</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="80" />
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="84" />
        <source>Repeat</source>
        <translation>再次输入</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="88" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="90" />
        <source>Unlock</source>
        <translation>解锁</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="90" />
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="98" />
        <location filename="../../ui/passphrase_dialog.py" line="101" />
        <source>Unlocking</source>
        <translation>正在解锁</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="100" />
        <source>Unlocking…</source>
        <translation>正在解锁…</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="144" />
        <source>Use at least %1 characters.</source>
        <translation>请至少使用 %1 个字符。</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="146" />
        <source>The two passphrases differ.</source>
        <translation>两次输入的口令不一致。</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="148" />
        <source>Enter the passphrase.</source>
        <translation>请输入口令。</translation>
    </message>
    <message>
        <location filename="../../ui/passphrase_dialog.py" line="181" />
        <source>That passphrase is wrong. Try again.</source>
        <translation>口令不正确，请重试。</translation>
    </message>
</context>
<context>
    <name>PathField</name>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="30" />
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team_dialogs.py" line="31" />
        <source>Browse for %1</source>
        <translation>浏览选择%1</translation>
    </message>
</context>
<context>
    <name>PolicyPanel</name>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="29" />
        <source>Memory policy</source>
        <translation>记忆策略</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="34" />
        <location filename="../../ui/views/settings/policy.py" line="41" />
        <source>Inferred memories expire after</source>
        <translation>推断的记忆过期时间</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="35" />
        <source>Memories the assistant inferred (not stated by you) expire after this.</source>
        <translation>助手推断出的记忆（不是你亲口说的）在此时间后过期。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="38" />
        <location filename="../../ui/views/settings/policy.py" line="42" />
        <source>Unreviewed suggestions expire after</source>
        <translation>未审核建议过期时间</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="39" />
        <source>Suggestions still waiting in the review queue expire after this.</source>
        <translation>仍在审核队列中等待的建议在此时间后过期。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="44" />
        <source>Review what the user states before it becomes memory</source>
        <translation>用户陈述的内容须经审核才成为记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="47" />
        <source>Quarantine untrusted sources (web, e-mail, issues)</source>
        <translation>隔离不可信来源（网页、邮件、工单）</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="52" />
        <source>Always ask before new memories of these scopes:</source>
        <translation>以下范围的新记忆总是先征求确认：</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="57" />
        <location filename="../../ui/views/settings/policy.py" line="67" />
        <source>Personal data</source>
        <translation>个人数据</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="58" />
        <source>Reject the memory</source>
        <translation>拒绝该记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="59" />
        <source>Keep it redacted, for confirmation</source>
        <translation>脱敏后保留，待确认</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="62" />
        <source>What happens to a new memory that contains personal data such as an e-mail address or a phone number.</source>
        <translation>新记忆含有个人数据（如邮箱地址或电话号码）时如何处理。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="78" />
        <source>Always ask: %1</source>
        <translation>总是确认：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="85" />
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="86" />
        <source>Apply memory policy</source>
        <translation>应用记忆策略</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="89" />
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="90" />
        <source>Revert memory policy</source>
        <translation>还原记忆策略</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="103" />
        <source>global (user-wide)</source>
        <translation>全局（整个用户）</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="104" />
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="105" />
        <source>organisation</source>
        <translation>组织</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="106" />
        <source>environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="107" />
        <source>agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="108" />
        <source>project</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="109" />
        <source>repository</source>
        <translation>代码仓库</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="110" />
        <source>session</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="119" />
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/policy.py" line="191" />
        <source>Memory policy saved.</source>
        <translation>记忆策略已保存。</translation>
    </message>
</context>
<context>
    <name>PreferencesPanel</name>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="18" />
        <source>Preferences</source>
        <translation>偏好设置</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="22" />
        <location filename="../../ui/views/settings/preferences.py" line="28" />
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="24" />
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="30" />
        <location filename="../../ui/views/settings/preferences.py" line="40" />
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="32" />
        <source>Same as the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="33" />
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/preferences.py" line="34" />
        <source>Dark</source>
        <translation>深色</translation>
    </message>
</context>
<context>
    <name>Progress</name>
    <message>
        <location filename="../../ui/ops.py" line="114" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../ui/ops.py" line="116" />
        <source>Memory Center</source>
        <translation>记忆中心</translation>
    </message>
    <message>
        <location filename="../../ui/ops.py" line="119" />
        <source>Progress</source>
        <translation>进度</translation>
    </message>
</context>
<context>
    <name>ProjectFolderBox</name>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="44" />
        <source>Memories in this folder</source>
        <translation>此文件夹中的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="45" />
        <source>Trust this folder</source>
        <translation>信任此文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="46" />
        <source>Trust this folder for the project it names</source>
        <translation>信任此文件夹为它所指的项目</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="47" />
        <source>Stop trusting</source>
        <translation>不再信任</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="48" />
        <source>Stop trusting this folder for its project</source>
        <translation>不再信任此文件夹为它的项目</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="55" />
        <source>Confirmed project folders</source>
        <translation>已确认的项目文件夹</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="72" />
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="89" />
        <source>Cannot tell: %1</source>
        <translation>无法判断：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="99" />
        <source>This folder speaks for project '%1': its Claude Code sessions get that project's memories and record into it.</source>
        <translation>此文件夹代表项目“%1”：其中的 Claude Code 会话获得该项目的记忆，并记录到该项目中。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="104" />
        <source>This folder calls its project '%1', which Memory Center already holds from elsewhere, so its sessions get none of that project's memories and are kept as '%2'. Trust the folder if it is that project.</source>
        <translation>此文件夹自称项目“%1”，而记忆中心已从别处保存了该项目，因此其中的会话不会获得该项目的任何记忆，并以“%2”单独保存。如果此文件夹确实是该项目，请信任它。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="110" />
        <source>Memory Center holds nothing of project '%1' yet: the first Claude Code session in this folder binds the folder to it.</source>
        <translation>记忆中心尚未保存项目“%1”的任何内容：此文件夹中的第一个 Claude Code 会话会把文件夹绑定到该项目。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="117" />
        <source>No folder is confirmed for any project yet.</source>
        <translation>尚未为任何项目确认文件夹。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="120" />
        <source>Confirmed folders: %1</source>
        <translation>已确认的文件夹：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="129" />
        <source>%1 now speaks for project '%2'.</source>
        <translation>%1 现在代表项目“%2”。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/folders.py" line="131" />
        <source>%1 no longer speaks for project '%2'.</source>
        <translation>%1 不再代表项目“%2”。</translation>
    </message>
</context>
<context>
    <name>Reason</name>
    <message>
        <location filename="../../ui/reasons.py" line="19" />
        <source>you asked to remember it</source>
        <translation>您要求记住它</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="22" />
        <source>you said it; waiting for your review</source>
        <translation>这是您说的；等待您审核</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="25" />
        <source>you said it</source>
        <translation>这是您说的</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="26" />
        <source>a fact a tool checked, with evidence</source>
        <translation>经工具核实的事实，有证据</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="29" />
        <source>the assistant guessed it; not confirmed</source>
        <translation>助手推测的；尚未确认</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="32" />
        <source>from a source that is not trusted (web page, e-mail, issue)</source>
        <translation>来自不受信任的来源（网页、邮件、工单）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="35" />
        <source>from a source that is not trusted</source>
        <translation>来自不受信任的来源</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="38" />
        <source>reads like an instruction to the assistant, from a source that is not trusted</source>
        <translation>看起来像是给助手的指令，且来自不受信任的来源</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="42" />
        <source>a temporary situation, not a lasting fact</source>
        <translation>暂时的情况，不是长期事实</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="45" />
        <source>would apply more widely than where it was said: needs your confirmation</source>
        <translation>适用范围比说出它的场合更广：需要您确认</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="48" />
        <source>picked up before the conversation was shortened: suggestions only</source>
        <translation>在对话被压缩前提取：仅作为建议</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="51" />
        <source>a reusable procedure: suggested as a skill, not stored as a fact</source>
        <translation>可复用的步骤：作为技能建议，不作为事实保存</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="54" />
        <source>approved by you</source>
        <translation>由您批准</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="55" />
        <source>rejected by you</source>
        <translation>由您拒绝</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="56" />
        <source>disabled by you</source>
        <translation>由您停用</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="57" />
        <source>enabled again by you</source>
        <translation>由您重新启用</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="58" />
        <source>disabled in the memory center</source>
        <translation>在记忆中心中停用</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="61" />
        <source>conflict settled by you</source>
        <translation>冲突由您解决</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="64" />
        <source>kept in the review queue</source>
        <translation>在审核队列中保留</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="67" />
        <source>both kept by you</source>
        <translation>您保留了两者</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="68" />
        <source>purged: the text was destroyed</source>
        <translation>已彻底清除：文本已销毁</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="71" />
        <source>waiting for your review</source>
        <translation>等待您审阅</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="72" />
        <source>imported</source>
        <translation>导入</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="73" />
        <source>imported: said earlier, not to you now</source>
        <translation>导入：较早时说的，并非现在对您说的</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="76" />
        <source>only a redacted copy is kept</source>
        <translation>只保留脱敏后的副本</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="79" />
        <source>needs your confirmation</source>
        <translation>需要您确认</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="80" />
        <source>the same text</source>
        <translation>文本相同</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="81" />
        <source>the same statement in other words</source>
        <translation>换了说法的同一陈述</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="91" />
        <source>wording changed (version %1)</source>
        <translation>措辞已修改（版本 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="95" />
        <source>scope changed from %1 to %2</source>
        <translation>范围从 %1 改为 %2</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="99" />
        <source>kept out of session %1</source>
        <translation>不注入会话 %1</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="103" />
        <source>allowed again in session %1</source>
        <translation>重新允许注入会话 %1</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="107" />
        <source>undone by you (%1 of %2)</source>
        <translation>由您撤销（%2 的 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="111" />
        <source>you already rejected the same memory (%1)</source>
        <translation>您已拒绝过相同的记忆（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="115" />
        <source>matches a memory you deleted (%1)</source>
        <translation>与您删除的记忆相同（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="119" />
        <source>stopped being valid at %1</source>
        <translation>于 %1 失效</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="123" />
        <source>imported (%1)</source>
        <translation>导入（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="127" />
        <source>imported (%1): said earlier, not to you now</source>
        <translation>导入（%1）：较早时说的，并非现在对您说的</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="131" />
        <source>kept: %1</source>
        <translation>保留：%1</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="135" />
        <source>replaced by %1: %2</source>
        <translation>被 %1 取代：%2</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="139" />
        <source>%1, file %2, session %3</source>
        <translation>%1，文件 %2，会话 %3</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="143" />
        <source>%1, session %2</source>
        <translation>%1，会话 %2</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="147" />
        <source>contains a secret (%1)</source>
        <translation>包含机密（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="151" />
        <source>contains personal data (%1)</source>
        <translation>包含个人数据（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="155" />
        <source>personal data (%1) hidden</source>
        <translation>个人数据（%1）已隐藏</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="159" />
        <source>in conflict with %1, both kept until you decide (%2)</source>
        <translation>与 %1 冲突，在您决定前两者都保留（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="165" />
        <source>replaces %1 (%2)</source>
        <translation>取代 %1（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="169" />
        <source>settles the unconfirmed guess %1 (%2)</source>
        <translation>确定了未确认的推测 %1（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="173" />
        <source>contradicts the memory %1 (%2)</source>
        <translation>与记忆 %1 矛盾（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="177" />
        <source>contradicts %1, a memory from a better source (%2)</source>
        <translation>与来源更可靠的记忆 %1 矛盾（%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="183" />
        <source>almost the same as %1 (%2): added to it as more evidence</source>
        <translation>与 %1 几乎相同（%2）：作为更多证据合并</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="189" />
        <source>same subject (%1), another value: %2</source>
        <translation>同一主题（%1），不同的值：%2</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="196" />
        <source>one denies what the other says (%1; same subject: %2)</source>
        <translation>一条否定了另一条所说的（%1；同一主题：%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="205" />
        <source>says it replaces %1, which the older memory says (same subject: %2)</source>
        <translation>说明它取代了旧记忆所说的 %1（同一主题：%2）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="214" />
        <source>possibly the same as %1 (%2): please decide</source>
        <translation>可能与 %1 说的是同一件事：请您决定</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="218" />
        <source>possibly replaces %1 (%2): please decide</source>
        <translation>可能取代 %1：请您决定</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="222" />
        <source>possibly contradicts %1 (%2): please decide</source>
        <translation>可能与 %1 矛盾：请您决定</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="226" />
        <source>the same fact in other words (%1)</source>
        <translation>换了说法的同一事实</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="230" />
        <source>the same statement in other words (%1)</source>
        <translation>换了说法的同一陈述</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="234" />
        <source>same subject, another value (%1)</source>
        <translation>同一主题，值不同</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="238" />
        <source>related (%1)</source>
        <translation>相关</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="242" />
        <source>meaning similarity %1</source>
        <translation>语义相似度 %1</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="246" />
        <source>adds detail (%1)</source>
        <translation>补充细节（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="250" />
        <source>a more precise value (%1)</source>
        <translation>更精确的值（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="254" />
        <source>about another subject (%1)</source>
        <translation>关于另一个主题（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="258" />
        <source>unconfirmed guess rejected: an observation (%1) says otherwise: %2</source>
        <translation>未确认的推测被拒绝：观察 %1 与之不符：%2</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="267" />
        <source>no longer blocked: you asked to remember it again (memory %1)</source>
        <translation>不再阻止：您要求再次记住它（记忆 %1）</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="277" />
        <source>the new statement is negated</source>
        <translation>新的陈述是否定的</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="278" />
        <source>the old statement is negated</source>
        <translation>旧的陈述是否定的</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="317" />
        <location filename="../../ui/reasons.py" line="337" />
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="344" />
        <source>Remembered</source>
        <translation>已记住</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="345" />
        <source>Suggested</source>
        <translation>已建议</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="346" />
        <source>Picked up from a conversation</source>
        <translation>从对话中提取</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="347" />
        <source>Imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="348" />
        <source>Approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="349" />
        <source>Rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="350" />
        <source>Wording changed</source>
        <translation>措辞已修改</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="351" />
        <source>Scope narrowed</source>
        <translation>范围已缩小</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="352" />
        <source>Scope widened</source>
        <translation>范围已扩大</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="353" />
        <source>Disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="354" />
        <source>Enabled again</source>
        <translation>已重新启用</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="355" />
        <source>Kept out of a session</source>
        <translation>已排除出某个会话</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="356" />
        <source>Allowed in a session again</source>
        <translation>已重新允许注入会话</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="357" />
        <source>Quarantined</source>
        <translation>已隔离</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="358" />
        <source>Conflict settled</source>
        <translation>冲突已解决</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="359" />
        <source>Conflict settled: all kept</source>
        <translation>冲突已解决：全部保留</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="360" />
        <source>Deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="361" />
        <source>Purged</source>
        <translation>已彻底清除</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="362" />
        <source>Replaced</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="363" />
        <source>Merged with more evidence</source>
        <translation>已合并更多证据</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="364" />
        <source>Expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="365" />
        <source>Observation recorded</source>
        <translation>已记录观察</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="366" />
        <source>Approval undone</source>
        <translation>已撤销批准</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="367" />
        <source>Rejection undone</source>
        <translation>已撤销拒绝</translation>
    </message>
    <message>
        <location filename="../../ui/reasons.py" line="368" />
        <source>Quarantine undone</source>
        <translation>已撤销隔离</translation>
    </message>
</context>
<context>
    <name>ReasonDialog</name>
    <message>
        <location filename="../../ui/dialogs.py" line="86" />
        <location filename="../../ui/dialogs.py" line="87" />
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="95" />
        <source>Give a reason.</source>
        <translation>请填写原因。</translation>
    </message>
</context>
<context>
    <name>Review</name>
    <message>
        <location filename="../../ui/views/review_card.py" line="31" />
        <source>The same  (1)</source>
        <translation>相同  (1)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="32" />
        <source>Replaces it  (2)</source>
        <translation>取代它  (2)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="33" />
        <source>Both true  (3)</source>
        <translation>都对  (3)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="34" />
        <source>Unrelated  (4)</source>
        <translation>无关  (4)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="41" />
        <source>Possibly the same as this memory:</source>
        <translation>可能与这条记忆相同：</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="42" />
        <source>Possibly replaces this memory:</source>
        <translation>可能取代这条记忆：</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="43" />
        <source>Possibly contradicts this memory:</source>
        <translation>可能与这条记忆矛盾：</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="50" />
        <source>Quarantined: this came from a low-trust source (a web page, e-mail, issue or tool output) or was stopped in an incident. Such text can try to instruct the agent. Approve only if you checked the source and agree with it.</source>
        <translation>已隔离：它来自低可信来源（网页、邮件、工单或工具输出），或在事件处置中被拦下。这类文本可能试图向智能体下指令。只有在你核实过来源并认可时才批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="75" />
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="80" />
        <source>Suggested memory</source>
        <translation>建议的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="86" />
        <source>Policy reasons</source>
        <translation>策略理由</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="90" />
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="97" />
        <source>Why it is here</source>
        <translation>为什么在这里</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="102" />
        <source>Evidence (the memory's words are highlighted)</source>
        <translation>证据（记忆中的词已高亮）</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="119" />
        <source>The other memory</source>
        <translation>另一条记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="122" />
        <source>Words that differ from the suggestion are marked.</source>
        <translation>与建议不同的词已标出。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="159" />
        <source>Ask %1…</source>
        <translation>询问 %1…</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="162" />
        <source>Ask the model judge you configured; its answer is applied under the trust rules, and an agent's suggestion still waits for you</source>
        <translation>询问你配置的模型裁判；它的回答按信任规则生效，智能体的建议仍等你决定</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="192" />
        <source>proposed scope</source>
        <translation>建议范围</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="194" />
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="197" />
        <source>confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="205" />
        <source>redacted: sensitive parts were removed</source>
        <translation>已脱敏：敏感部分已移除</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="210" />
        <source>waits until</source>
        <translation>等待至</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="213" />
        <source>Loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="224" />
        <source>(redacted)</source>
        <translation>（已脱敏）</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_card.py" line="235" />
        <source>No source events.</source>
        <translation>没有来源事件。</translation>
    </message>
    <message>
        <location filename="../../ui/models/review_model.py" line="128" />
        <source>Suggested memories (%1)</source>
        <translation>建议的记忆（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/models/review_model.py" line="130" />
        <source>Conflicts (%1)</source>
        <translation>冲突（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/models/review_model.py" line="134" />
        <source>Quarantined — check before approving (%1)</source>
        <translation>已隔离——批准前请核实（%1）</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="55" />
        <source>merged into the other memory</source>
        <translation>已并入另一条记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="56" />
        <source>it replaces the other memory</source>
        <translation>它取代了另一条记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="57" />
        <source>both kept in a conflict set</source>
        <translation>两条都保留在冲突集中</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="58" />
        <source>both kept</source>
        <translation>两条都保留</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="59" />
        <source>left for you to decide</source>
        <translation>留给你决定</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="60" />
        <source>already answered</source>
        <translation>已有答复</translation>
    </message>
</context>
<context>
    <name>ReviewView</name>
    <message>
        <location filename="../../ui/views/review_view.py" line="85" />
        <source>Review queue</source>
        <translation>待审队列</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="101" />
        <source>Keep both</source>
        <translation>两者都保留</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="103" />
        <source>Both are true: keep every memory of the set as it is</source>
        <translation>两者都成立：按原样保留这组中的每条记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="106" />
        <source>Split by scope…</source>
        <translation>按范围拆分…</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="108" />
        <source>Both are true in different places: narrow each to its own scope</source>
        <translation>在不同场合各自成立：把每条记忆收窄到各自的范围</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="112" />
        <source>Or keep them all:</source>
        <translation>或全部保留：</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="118" />
        <source>These memories contradict each other.</source>
        <translation>这些记忆相互矛盾。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="124" />
        <source>Nothing to review. New suggestions from your agents appear here.</source>
        <translation>没有待审内容。智能体的新建议会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="134" />
        <location filename="../../ui/views/review_view.py" line="271" />
        <source>Approve  (A)</source>
        <translation>批准  (A)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="136" />
        <source>Edit, then approve  (E)</source>
        <translation>编辑后批准  (E)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="137" />
        <source>Change scope, then approve  (S)</source>
        <translation>修改范围后批准  (S)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="138" />
        <source>Reject…  (R)</source>
        <translation>拒绝…  (R)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="144" />
        <source>All from this session…  (G)</source>
        <translation>本会话的全部建议…  (G)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="146" />
        <source>Every suggestion of the session this one came from, on one screen</source>
        <translation>这条建议所属会话的全部建议，在一个界面中</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="271" />
        <source>Approve…  (A)</source>
        <translation>批准…  (A)</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="304" />
        <source>Words that differ from the other memory are marked.</source>
        <translation>与另一条记忆不同的词已标出。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="312" />
        <source>Keep this</source>
        <translation>保留这条</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="314" />
        <source>Keep this: %1</source>
        <translation>保留这条：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="319" />
        <source>Not in conflict</source>
        <translation>不冲突</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="321" />
        <source>This memory does not contradict the others: take it out of the set</source>
        <translation>这条记忆与其他几条并不矛盾：把它移出冲突集</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="323" />
        <source>Not in conflict: %1</source>
        <translation>不冲突：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="330" />
        <source>Conflicting memory</source>
        <translation>冲突的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="354" />
        <source>Approval undone: the memory is back in the queue.</source>
        <translation>已撤销批准：该记忆回到审核队列。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="355" />
        <source>Rejection undone: the memory is back in the queue.</source>
        <translation>已撤销拒绝：该记忆回到审核队列。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="358" />
        <source>Undone.</source>
        <translation>已撤销。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="373" />
        <source>Approved.</source>
        <translation>已批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="379" />
        <source>Approve a quarantined memory?</source>
        <translation>批准一条已隔离的记忆？</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="381" />
        <source>It came from a low-trust source (a web page, an e-mail, an issue) and may carry instructions meant for your agents. Approve it only if you checked that it is true and harmless.</source>
        <translation>它来自低可信来源（网页、邮件、工单），可能夹带针对智能体的指令。只有在您确认它真实且无害时才批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="388" />
        <source>Approve anyway</source>
        <translation>仍然批准</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="389" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="391" />
        <source>Confirm approval of a quarantined memory</source>
        <translation>确认批准已隔离的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="405" />
        <source>Edited and approved.</source>
        <translation>已编辑并批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="422" />
        <source>Scope changed and approved.</source>
        <translation>已修改范围并批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="434" />
        <source>Reject suggestion</source>
        <translation>拒绝建议</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="435" />
        <source>It stays in the ledger so it is not suggested again.</source>
        <translation>它会留在候选账本中，不会再次被建议。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="443" />
        <source>Rejected.</source>
        <translation>已拒绝。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="454" />
        <source>Merged into the other memory as more evidence.</source>
        <translation>已并入另一条记忆，作为更多证据。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="455" />
        <source>Approved; it replaces the other memory.</source>
        <translation>已批准；它取代了另一条记忆。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="456" />
        <location filename="../../ui/views/review_view.py" line="457" />
        <source>Approved; both are kept.</source>
        <translation>已批准；两条都保留。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="472" />
        <source>Nothing to ask: the item was answered meanwhile.</source>
        <translation>无需询问：这一项已经有了答复。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="476" />
        <source>The model judge could not answer: %1</source>
        <translation>模型裁判无法回答：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="478" />
        <source>The model judge answered “%1”: %2</source>
        <translation>模型裁判回答“%1”：%2</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="507" />
        <source>Conflict resolved.</source>
        <translation>冲突已解决。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="513" />
        <source>Taken out of the conflict set.</source>
        <translation>已移出冲突集。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="522" />
        <source>Conflict resolved: both kept.</source>
        <translation>冲突已解决：两者都保留。</translation>
    </message>
    <message>
        <location filename="../../ui/views/review_view.py" line="535" />
        <source>Conflict resolved: split by scope.</source>
        <translation>冲突已解决：已按范围拆分。</translation>
    </message>
</context>
<context>
    <name>Scope</name>
    <message>
        <location filename="../../ui/presentation.py" line="222" />
        <source>everywhere</source>
        <translation>所有范围</translation>
    </message>
</context>
<context>
    <name>ScopeDialog</name>
    <message>
        <location filename="../../ui/dialogs.py" line="141" />
        <source>Change scope</source>
        <translation>修改范围</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="141" />
        <source>Downgrade scope</source>
        <translation>缩小范围</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="142" />
        <source>Current scope: %1</source>
        <translation>当前范围：%1</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="145" />
        <source>Give the whole scope as key=value words.</source>
        <translation>以 key=value 的形式填写完整范围。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="147" />
        <source>Add one key=value to narrow where this memory applies.</source>
        <translation>添加一个 key=value，缩小这条记忆的适用范围。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="155" />
        <source>Scope key</source>
        <translation>范围键</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="160" />
        <source>Scope value</source>
        <translation>范围值</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="162" />
        <source>Whole scope</source>
        <translation>完整范围</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="168" />
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="170" />
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="171" />
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="194" />
        <source>Give a value for the new key.</source>
        <translation>请为新键填写值。</translation>
    </message>
</context>
<context>
    <name>SessionDialog</name>
    <message>
        <location filename="../../ui/dialogs.py" line="207" />
        <source>Exclude from a session</source>
        <translation>在会话中排除</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="208" />
        <source>The memory stays active elsewhere but is never injected into this session.</source>
        <translation>记忆在其他地方仍然有效，但不会注入到这个会话。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="214" />
        <location filename="../../ui/dialogs.py" line="215" />
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="227" />
        <source>Choose a session.</source>
        <translation>请选择会话。</translation>
    </message>
</context>
<context>
    <name>SessionReviewDialog</name>
    <message>
        <location filename="../../ui/views/session_review.py" line="117" />
        <source>Suggestions from one session</source>
        <translation>一个会话的建议</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="118" />
        <source>Suggestions of the session %1</source>
        <translation>会话 %1 的建议</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="120" />
        <source>Loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="130" />
        <source>Approve all remaining  (Ctrl+Enter)</source>
        <translation>批准其余全部  (Ctrl+Enter)</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="133" />
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="183" />
        <source>No suggestions from the session %1 wait for review.</source>
        <translation>会话 %1 没有待审阅的建议。</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="185" />
        <source>Suggestions from the session %1 waiting for a decision: %2</source>
        <translation>会话 %1 中待决定的建议：%2</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="187" />
        <source>Every suggestion from the session %1 is decided.</source>
        <translation>会话 %1 的建议都已决定。</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="246" />
        <source>Approved.</source>
        <translation>已批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="255" />
        <source>Rejected.</source>
        <translation>已拒绝。</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="273" />
        <source>Approve a quarantined memory?</source>
        <translation>批准一条已隔离的记忆？</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="275" />
        <source>It came from a low-trust source (a web page, an e-mail, an issue) and may carry instructions meant for your agents. Approve it only if you checked that it is true and harmless.</source>
        <translation>它来自低可信来源（网页、邮件、工单），可能夹带针对智能体的指令。只有在您确认它真实且无害时才批准。</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="282" />
        <source>Approve anyway</source>
        <translation>仍然批准</translation>
    </message>
</context>
<context>
    <name>Sessions</name>
    <message>
        <location filename="../../ui/models/session_list.py" line="21" />
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/models/session_list.py" line="22" />
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <location filename="../../ui/models/session_list.py" line="23" />
        <source>Last activity</source>
        <translation>最近活动</translation>
    </message>
    <message>
        <location filename="../../ui/models/session_list.py" line="24" />
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../ui/models/session_list.py" line="46" />
        <source>opted out</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <location filename="../../ui/models/session_list.py" line="48" />
        <source>on</source>
        <translation>开启</translation>
    </message>
</context>
<context>
    <name>SessionsView</name>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="82" />
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="84" />
        <source>Events of the session</source>
        <translation>会话事件</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="104" />
        <source>Memory opt-out: inject nothing into this session and extract nothing from it</source>
        <translation>关闭记忆：不向此会话注入任何记忆，也不从中提取</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="106" />
        <source>Memory opt-out</source>
        <translation>关闭记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="108" />
        <source>Review its suggestions…</source>
        <translation>审阅本会话的建议…</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="110" />
        <source>Every suggestion this session produced, with its evidence, on one screen</source>
        <translation>本会话产生的全部建议及其证据，在一个界面中</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="115" />
        <source>Model calls of the session</source>
        <translation>会话的模型调用</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="170" />
        <source>Model call</source>
        <translation>模型调用</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="335" />
        <source>No model call of this session recorded a snapshot.</source>
        <translation>这个会话没有记录快照的模型调用。</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="358" />
        <source>Memory is off for %1.</source>
        <translation>%1 的记忆已关闭。</translation>
    </message>
    <message>
        <location filename="../../ui/views/sessions_view.py" line="360" />
        <source>Memory is on for %1.</source>
        <translation>%1 的记忆已开启。</translation>
    </message>
</context>
<context>
    <name>SettingsView</name>
    <message>
        <location filename="../../ui/views/settings/view.py" line="64" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
</context>
<context>
    <name>Snapshot</name>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="27" />
        <source>deleted since</source>
        <translation>之后被删除</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="28" />
        <source>replaced since</source>
        <translation>之后被取代</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="29" />
        <source>disabled since</source>
        <translation>之后被停用</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="30" />
        <source>quarantined since</source>
        <translation>之后被隔离</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="31" />
        <source>expired since</source>
        <translation>之后已过期</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="32" />
        <source>purged since</source>
        <translation>之后被彻底清除</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="33" />
        <source>edited since</source>
        <translation>之后被修改</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="34" />
        <source>scope changed since</source>
        <translation>之后范围有变</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="35" />
        <source>may be out of date</source>
        <translation>可能已过时</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="36" />
        <source>contradicts another memory here</source>
        <translation>与此处另一条记忆矛盾</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="52" />
        <source>keyword and vector search</source>
        <translation>关键词与向量检索</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="53" />
        <source>keyword search (no embedder)</source>
        <translation>关键词检索（未配置嵌入模型）</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="54" />
        <source>keyword search only: the vector search was unavailable</source>
        <translation>仅关键词检索：向量检索不可用</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="57" />
        <source>no memory: this session opted out</source>
        <translation>未提供记忆：此会话已选择不使用记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="58" />
        <source>no memory: paused for this agent</source>
        <translation>未提供记忆：此智能体的记忆已暂停</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="68" />
        <source>the embedding model was still loading</source>
        <translation>嵌入模型仍在加载</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="71" />
        <source>the vector index file was still being read</source>
        <translation>向量索引文件仍在读取</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="75" />
        <source>the vector search did not answer within the time limit</source>
        <translation>向量检索未在时限内返回</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="80" />
        <source>the vector search was busy with an earlier query</source>
        <translation>向量检索正忙于之前的查询</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="84" />
        <source>the vector index failed</source>
        <translation>向量索引出错</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="88" />
        <source>the vector search had failed just before; it is retried shortly</source>
        <translation>向量检索刚刚失败过；稍后会重试</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="92" />
        <source>the session opted out of memory</source>
        <translation>该会话已选择不使用记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="95" />
        <source>memory could not be read</source>
        <translation>无法读取记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="108" />
        <source>Memory found by: %1</source>
        <translation>记忆的查找方式：%1</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="129" />
        <source>the other memory</source>
        <translation>另一条记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="131" />
        <source>see %1</source>
        <translation>见 %1</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="149" />
        <source>%1 of %2 tokens used</source>
        <translation>使用了 %2 个词元中的 %1 个</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="59" />
        <source>degraded: memory was unavailable</source>
        <translation>已降级：记忆暂不可用</translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="181" />
        <source>The model was given memories that contradict each other.</source>
        <translation>模型收到了相互矛盾的记忆。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/snapshot_text.py" line="186" />
        <source>Injected (%n)</source>
        <translation><numerusform>已注入（%n）</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/snapshot_text.py" line="190" />
        <source>Dropped, and why (%n)</source>
        <translation><numerusform>未注入及原因（%n）</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/views/snapshot_text.py" line="123" />
        <source>(purged)</source>
        <translation>（已清除）</translation>
    </message>
</context>
<context>
    <name>Source</name>
    <message>
        <location filename="../../ui/presentation.py" line="107" />
        <source>chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="108" />
        <source>web page</source>
        <translation>网页</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="109" />
        <source>search result</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="110" />
        <source>e-mail</source>
        <translation>邮件</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="111" />
        <source>issue</source>
        <translation>工单</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="112" />
        <source>document</source>
        <translation>文档</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="113" />
        <source>terminal</source>
        <translation>终端</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="114" />
        <source>CI</source>
        <translation>持续集成</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="115" />
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="116" />
        <source>import</source>
        <translation>导入</translation>
    </message>
</context>
<context>
    <name>SplitScopeDialog</name>
    <message>
        <location filename="../../ui/dialogs.py" line="338" />
        <source>Split by scope</source>
        <translation>按范围拆分</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="340" />
        <source>Both memories are kept, each narrowed to where it is true. Add one key=value to each scope, for example environment=eu and environment=us.</source>
        <translation>两条记忆都会保留，并各自收窄到其成立的场合。请为每个范围添加一个 key=value，例如 environment=eu 和 environment=us。</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="351" />
        <source>%1. “%2”
Current scope: %3</source>
        <translation>%1. “%2”
当前范围：%3</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="358" />
        <source>key=value, e.g. environment=eu</source>
        <translation>key=value，例如 environment=eu</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="359" />
        <source>Extra scope for memory %1</source>
        <translation>记忆 %1 的附加范围</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="362" />
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="367" />
        <source>Resulting scopes</source>
        <translation>结果范围</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="368" />
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="384" />
        <source>give one key=value</source>
        <translation>请填写一个 key=value</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="386" />
        <source>give exactly one key=value</source>
        <translation>只能填写一个 key=value</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="397" />
        <source>the scope already has %1; add a key it does not have</source>
        <translation>范围中已有 %1；请添加一个尚未包含的键</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="429" />
        <source>Memory %1: %2</source>
        <translation>记忆 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/dialogs.py" line="432" />
        <source>The new scopes are the same; give each memory a different place.</source>
        <translation>新范围相同；请为每条记忆指定不同的场合。</translation>
    </message>
</context>
<context>
    <name>StartWindow</name>
    <message>
        <location filename="../../app/gui_start.py" line="70" />
        <location filename="../../app/gui_start.py" line="97" />
        <source>Memory Center</source>
        <translation>记忆中心</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="71" />
        <source>Memory Center is starting</source>
        <translation>记忆中心正在启动</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="100" />
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="102" />
        <source>Start-up progress</source>
        <translation>启动进度</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="123" />
        <source>Welcome to Memory Center</source>
        <translation>欢迎使用记忆中心</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="128" />
        <source>Memory Center keeps what your AI agents remember about you, encrypted on this computer, and lets you see, correct and control it.</source>
        <translation>记忆中心在这台电脑上加密保存 AI 智能体记住的关于您的内容，让您可以查看、更正和掌控。</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="134" />
        <source>Explore a demo store</source>
        <translation>浏览演示库</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="137" />
        <source>Sample memories of made-up people, in a separate store. Your agents never see it, and your own store stays empty.</source>
        <translation>虚构人物的示例记忆，保存在单独的记忆库中。您的智能体永远看不到它，您自己的记忆库保持为空。</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="141" />
        <source>Start with an empty store</source>
        <translation>从空记忆库开始</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="144" />
        <source>Your own store: it fills as your agents and you add memories.</source>
        <translation>您自己的记忆库：随着您和智能体添加记忆而充实。</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="153" />
        <source>Look around with sample memories first (a separate demo store).</source>
        <translation>先用示例记忆四处看看（单独的演示库）。</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="155" />
        <source>Your own memory store, empty for now.</source>
        <translation>您自己的记忆库，目前为空。</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <location filename="../../ui/presentation.py" line="38" />
        <source>suggested</source>
        <translation>待审</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="39" />
        <source>active</source>
        <translation>生效</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="40" />
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="41" />
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="42" />
        <source>superseded</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="43" />
        <source>quarantined</source>
        <translation>已隔离</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="44" />
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="45" />
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
</context>
<context>
    <name>StorePanel</name>
    <message>
        <location filename="../../ui/views/settings/store.py" line="20" />
        <source>Store</source>
        <translation>存储</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/store.py" line="25" />
        <location filename="../../ui/views/settings/store.py" line="41" />
        <source>Data directory</source>
        <translation>数据目录</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/store.py" line="26" />
        <source>Revision</source>
        <translation>修订</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/store.py" line="27" />
        <source>Schema version</source>
        <translation>结构版本</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/store.py" line="28" />
        <source>Contents</source>
        <translation>内容</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/store.py" line="41" />
        <source>Database server</source>
        <translation>数据库服务器</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/store.py" line="47" />
        <source>%1 events in %2 sessions</source>
        <translation>%2 个会话中的 %1 个事件</translation>
    </message>
</context>
<context>
    <name>SuggestionRow</name>
    <message>
        <location filename="../../ui/views/session_review.py" line="80" />
        <source>Approve  (A)</source>
        <translation>批准  (A)</translation>
    </message>
    <message>
        <location filename="../../ui/views/session_review.py" line="82" />
        <source>Reject  (R)</source>
        <translation>拒绝  (R)</translation>
    </message>
</context>
<context>
    <name>Team</name>
    <message>
        <location filename="../../ui/operations/team.py" line="54" />
        <source>Removing %1: re-encrypting the store under a new key…</source>
        <translation>正在移除 %1：用新密钥重新加密存储…</translation>
    </message>
    <message>
        <location filename="../../ui/operations/team.py" line="57" />
        <source>rows re-encrypted</source>
        <translation>行已重新加密</translation>
    </message>
</context>
<context>
    <name>TeamPanel</name>
    <message>
        <location filename="../../ui/views/settings/team.py" line="43" />
        <source>Team and devices</source>
        <translation>团队与设备</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="48" />
        <source>Members</source>
        <translation>成员</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="50" />
        <source>Member</source>
        <translation>成员</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="50" />
        <source>Joined</source>
        <translation>加入时间</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="50" />
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="61" />
        <source>Invite…</source>
        <translation>邀请…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="63" />
        <source>Join…</source>
        <translation>加入…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="64" />
        <source>Join a team store from this computer.</source>
        <translation>让这台电脑加入团队存储。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="66" />
        <source>Remove member…</source>
        <translation>移除成员…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="68" />
        <location filename="../../ui/views/settings/team.py" line="159" />
        <source>Revoke the member's devices and re-encrypt the store under a new key.</source>
        <translation>吊销该成员的设备，并用新密钥重新加密存储。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="98" />
        <source>Members' devices share this store on %1. A memory whose scope names a user (user=…) is readable only by that person's devices.</source>
        <translation>成员的设备共享 %1 上的此存储。范围中指定了用户（user=…）的记忆只有该用户的设备能读取。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="103" />
        <source>This store is a file on this computer. To share memories between computers or with a team, create a store on a database server (memory-center init --database postgresql://…) and invite members from there. You can join a team store you were invited to.</source>
        <translation>此存储是这台电脑上的一个文件。若要在多台电脑之间或与团队共享记忆，请在数据库服务器上创建存储（memory-center init --database postgresql://…），并从那里邀请成员。您可以加入受邀的团队存储。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="118" />
        <source>removed %1</source>
        <translation>已于 %1 移除</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="122" />
        <source>invited, not joined yet</source>
        <translation>已邀请，尚未加入</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="125" />
        <source>revoked</source>
        <translation>已吊销</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/settings/team.py" line="127" />
        <source>%n device(s)</source>
        <translation><numerusform>%n 台设备</numerusform></translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="131" />
        <source>Created this store</source>
        <translation>创建了此存储</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="145" />
        <source>Write an invitation file for a member's device.</source>
        <translation>为成员的设备写入邀请文件。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="147" />
        <source>Only a store on a database server can have members.</source>
        <translation>只有数据库服务器上的存储才能有成员。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="157" />
        <source>Whoever created the store cannot be removed.</source>
        <translation>创建此存储的成员无法被移除。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="184" />
        <source>Invitation written</source>
        <translation>邀请已写入</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="185" />
        <source>One-time code for %1:</source>
        <translation>%1 的一次性代码：</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="192" />
        <source>The invitation is in %1. The code is shown only now: send the file and the code by different channels. On the other computer: Settings → Join…</source>
        <translation>邀请保存在 %1。代码只显示这一次：请通过不同渠道发送文件和代码。在另一台电脑上：设置 → 加入…</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="198" />
        <source>Invitation code</source>
        <translation>邀请代码</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="226" />
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="235" />
        <source>The code is wrong for this invitation. Check it and try again.</source>
        <translation>此邀请的代码不正确。请检查后重试。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="250" />
        <source>Joined the team store</source>
        <translation>已加入团队存储</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="251" />
        <source>This computer joined the team store; its data directory is %1.</source>
        <translation>这台电脑已加入团队存储；其数据目录为 %1。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="258" />
        <source>Open it with: memory-center --data-dir %1 gui</source>
        <translation>打开方式：memory-center --data-dir %1 gui</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="265" />
        <source>Open it now</source>
        <translation>立即打开</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="280" />
        <source>Remove a member</source>
        <translation>移除成员</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="282" />
        <source>Remove %1? Their devices lose access, and the store is re-encrypted under a new key so that what is written from now on is unreadable to them. What they copied before cannot be taken back. This can take a while; you can stop and continue later.</source>
        <translation>移除 %1？其设备将失去访问权限，存储会用新密钥重新加密，此后写入的内容他们无法读取。他们之前复制的内容无法收回。这可能需要一些时间；您可以中途停止，稍后继续。</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="290" />
        <source>Remove and rotate the key</source>
        <translation>移除并轮换密钥</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="291" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="293" />
        <source>Confirm member removal</source>
        <translation>确认移除成员</translation>
    </message>
    <message>
        <location filename="../../ui/views/settings/team.py" line="304" />
        <source>%1 removed; the key rotated to %2 (%3 values re-encrypted).</source>
        <translation>已移除 %1；密钥已轮换为 %2（重新加密了 %3 个值）。</translation>
    </message>
</context>
<context>
    <name>Time</name>
    <message>
        <location filename="../../ui/presentation.py" line="196" />
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="198" />
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="240" />
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="243" />
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/presentation.py" line="248" />
        <source>in %n hour(s)</source>
        <translation><numerusform>%n 小时后</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/presentation.py" line="250" />
        <source>in %n day(s)</source>
        <translation><numerusform>%n 天后</numerusform></translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="48" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="49" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="50" />
        <source>Content</source>
        <translation>内容</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="51" />
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="52" />
        <source>Conf.</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="53" />
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="54" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="185" />
        <source>(purged)</source>
        <translation>（已清除）</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="201" />
        <source>%1 · said %2</source>
        <translation>%1 · 说于 %2</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="218" />
        <source>event</source>
        <translation>事件</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="236" />
        <source>Stored %1</source>
        <translation>存储于 %1</translation>
    </message>
    <message>
        <location filename="../../ui/models/timeline_model.py" line="238" />
        <source>Said %1, stored %2</source>
        <translation>说于 %1，存储于 %2</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="112" />
        <source>Loading your memories</source>
        <translation>正在加载您的记忆</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="116" />
        <source>No memories yet. Connect an agent (Settings → Connected agents: install the Claude Code hooks, or add the MCP server to your client), or import an earlier conversation history (File → Import transcripts…).</source>
        <translation>还没有记忆。连接一个智能体（设置 → 已连接的智能体：安装 Claude Code 钩子，或在您的客户端中添加 MCP 服务器），或导入较早的对话记录（文件 → 导入对话记录…）。</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="163" />
        <source>Search memories…</source>
        <translation>搜索记忆…</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="164" />
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="170" />
        <source>Status filter</source>
        <translation>状态筛选</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="170" />
        <source>All statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="173" />
        <source>Kind filter</source>
        <translation>类型筛选</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="173" />
        <source>All kinds</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="176" />
        <source>Source trust filter</source>
        <translation>来源筛选</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="176" />
        <source>Any source</source>
        <translation>任何来源</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="179" />
        <source>Scope, e.g. project=web-shop</source>
        <translation>范围，例如 project=web-shop</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="180" />
        <source>Scope filter</source>
        <translation>范围筛选</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="183" />
        <source>Rank by relevance</source>
        <translation>按相关度排序</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="184" />
        <source>Rank search results by relevance in the scope</source>
        <translation>在该范围内按相关度排序搜索结果</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="187" />
        <source>With search text and a key=value scope, show the memories an agent in that scope would find, best match first.</source>
        <translation>输入搜索词和 key=value 范围后，显示该范围内的智能体会找到的记忆，最相关的在前。</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="193" />
        <source>Between</source>
        <translation>日期范围</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="201" />
        <source>From date</source>
        <translation>开始日期</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="202" />
        <source>To date</source>
        <translation>结束日期</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="204" />
        <source>Show events</source>
        <translation>显示事件</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="205" />
        <source>Show events in the timeline</source>
        <translation>在时间线中显示事件</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="239" />
        <source>Timeline of memories</source>
        <translation>记忆时间线</translation>
    </message>
    <message>
        <location filename="../../ui/views/timeline_view.py" line="338" />
        <source>Loading your memories…</source>
        <translation>正在载入您的记忆…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/timeline_view.py" line="351" />
        <source>%n ranked results</source>
        <translation><numerusform>%n 条排序结果</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/views/timeline_view.py" line="353" />
        <source>%n memories</source>
        <translation><numerusform>%n 条记忆</numerusform></translation>
    </message>
</context>
<context>
    <name>TranscriptImport</name>
    <message>
        <location filename="../../ui/transcript_import.py" line="128" />
        <source>Importing %1…</source>
        <translation>正在导入 %1…</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="129" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="134" />
        <source>Import transcripts</source>
        <translation>导入对话记录</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="139" />
        <source>Import progress</source>
        <translation>导入进度</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="147" />
        <source>%1: %2 of %3 sessions</source>
        <translation>%1：第 %2 / %3 个会话</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="168" />
        <source>Stopping after the current session…</source>
        <translation>将在当前会话完成后停止…</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="180" />
        <source>Import finished</source>
        <translation>导入完成</translation>
    </message>
    <message>
        <location filename="../../ui/transcript_import.py" line="182" />
        <source>Import summary</source>
        <translation>导入摘要</translation>
    </message>
</context>
<context>
    <name>Trust</name>
    <message>
        <location filename="../../ui/presentation.py" line="65" />
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="66" />
        <source>tool-verified</source>
        <translation>工具验证</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="67" />
        <source>inferred</source>
        <translation>推断</translation>
    </message>
    <message>
        <location filename="../../ui/presentation.py" line="68" />
        <source>untrusted</source>
        <translation>不可信</translation>
    </message>
</context>
<context>
    <name>UndoHistory</name>
    <message>
        <location filename="../../ui/undo_history.py" line="122" />
        <source>Undone: %1</source>
        <translation>已撤销：%1</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="133" />
        <source>Redone: %1</source>
        <translation>已重做：%1</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="150" />
        <source>the last change</source>
        <translation>上一次更改</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="325" />
        <source>new</source>
        <translation>新建</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="328" />
        <source>%1 (changed)</source>
        <translation>%1（已更改）</translation>
    </message>
</context>
<context>
    <name>UndoHistoryDialog</name>
    <message>
        <location filename="../../ui/undo_history.py" line="234" />
        <location filename="../../ui/undo_history.py" line="235" />
        <source>Undo history</source>
        <translation>撤销历史</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="239" />
        <source>Every change to your memories, newest first, whoever made it. Undo puts the memories it changed back as they were; the history keeps both. A deletion cannot be undone.</source>
        <translation>对记忆的每一次更改，最新的在前，无论由谁做出。撤销会把它改动的记忆恢复原样；历史中两者都会保留。删除无法撤销。</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="247" />
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="247" />
        <source>Change</source>
        <translation>更改</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="247" />
        <source>By</source>
        <translation>操作者</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="247" />
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="253" />
        <source>Changes</source>
        <translation>更改</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="254" />
        <source>Undo this change</source>
        <translation>撤销这次更改</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="281" />
        <source>(undone)</source>
        <translation>（已撤销）</translation>
    </message>
    <message>
        <location filename="../../ui/undo_history.py" line="315" />
        <source>Undone.</source>
        <translation>已撤销。</translation>
    </message>
</context>
<context>
    <name>Usage</name>
    <message>
        <location filename="../../ui/views/usage_trace.py" line="43" />
        <source>agent %1</source>
        <translation>智能体 %1</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="50" />
        <source>an MCP client</source>
        <translation>MCP 客户端</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="51" />
        <source>Claude Code</source>
        <translation>Claude Code</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="52" />
        <source>ChatGPT import</source>
        <translation>ChatGPT 导入</translation>
    </message>
    <message>
        <location filename="../../ui/agent_identity.py" line="55" />
        <source>an agent (SDK or tool)</source>
        <translation>智能体（SDK 或工具）</translation>
    </message>
    <message>
        <location filename="../../ui/views/usage_trace.py" line="91" />
        <source>with %1</source>
        <translation>同批还有 %1</translation>
    </message>
    <message>
        <location filename="../../ui/views/usage_trace.py" line="99" />
        <source>alone</source>
        <translation>单独注入</translation>
    </message>
    <message>
        <location filename="../../ui/views/usage_trace.py" line="101" />
        <source>open the replay</source>
        <translation>打开回放</translation>
    </message>
</context>
<context>
    <name>self.window</name>
    <message>
        <location filename="../../app/gui_start.py" line="262" />
        <source>Opening the demo store…</source>
        <translation>正在打开演示库…</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="264" />
        <source>Opening your memory store…</source>
        <translation>正在打开您的记忆库…</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="300" />
        <source>Loading your memories…</source>
        <translation>正在载入您的记忆…</translation>
    </message>
    <message>
        <location filename="../../app/gui_start.py" line="358" />
        <source>Memory Center cannot open the store</source>
        <translation>记忆中心无法打开记忆库</translation>
    </message>
</context>
</TS>