"""Fill resources/i18n/memory_center_zh_CN.ts with the Simplified Chinese texts, then compile.

Usage (repository root):
    .venv/bin/pyside6-lupdate $(find ui -name '*.py') -ts resources/i18n/memory_center_zh_CN.ts
    .venv/bin/python resources/i18n/fill_zh_CN.py
    .venv/bin/pyside6-lrelease resources/i18n/memory_center_zh_CN.ts
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

TS = Path(__file__).with_name("memory_center_zh_CN.ts")

ZH = {
    "Delete memory": "删除记忆", "Reason": "原因", "Also purge the content (compliance purge)": "同时彻底清除内容（合规清除）",
    "Purge": "清除", "Delete": "删除", "“%1”": "“%1”",
    "This cannot be undone. Deleting will irreversibly:": "此操作无法撤销。删除将不可逆地：",
    "• remove it from the search index, keyword index and injection caches, so no agent can receive it again;": "• 从检索索引、关键词索引和注入缓存中移除，任何智能体都不会再收到它；",
    "• mark it deleted and keep a tombstone (id, scope, time, who, why, source event ids).": "• 标记为已删除，并保留墓碑记录（编号、范围、时间、操作人、原因、来源事件）。",
    "• destroy the text of all %1 revision(s);": "• 销毁全部 %1 个修订版本的文本；",
    "• blank it out of the injected text of %1 recorded model call(s);": "• 从 %1 次已记录模型调用的注入文本中抹去；",
    "Only “existed, deleted at T” remains.": "只保留“曾存在，于某时删除”。",
    "Its encrypted text stays in the history until purged.": "在清除之前，其加密文本仍保留在历史中。",
    "Give a reason; it is kept in the tombstone.": "请填写原因；它会保存在墓碑记录中。",
    "No source events.": "没有来源事件。", "(redacted)": "（已脱敏）",
    "Never injected into a model call.": "从未被注入到模型调用中。",
    "Injected %1 time(s); last used %2.": "已注入 %1 次；最近一次使用于 %2。", "no session": "无会话",
    "(purged)": "（已清除）", "Memory status": "记忆状态", "Memory content": "记忆内容",
    "Downgrade scope…": "缩小范围…", "Disable": "停用", "Exclude from session…": "在会话中排除…",
    "Quarantine…": "隔离…", "Delete…": "删除…", "Source events": "来源事件", "Usage trace": "使用记录",
    "History of decisions": "决策历史", "Revisions": "修订版本", "Kind": "类型", "Scope": "范围",
    "Confidence": "置信度", "Source trust": "来源可信度", "Valid": "有效期", "Sensitivity": "敏感度",
    "Supersedes": "取代关系", "Conflict set": "冲突组", "Owner": "所有者", "Id": "编号",
    "Select a memory to see where it came from and how it is used.": "选择一条记忆，查看它的来源和使用情况。",
    "(content purged)": "（内容已清除）", "from %1, expires %2": "自 %1 起，到期：%2", "supersedes": "取代",
    "superseded by": "被取代于", "in conflict with: ": "与之冲突：", "Enable": "启用",
    "Memory disabled.": "记忆已停用。", "Memory enabled.": "记忆已启用。", "Scope narrowed.": "范围已缩小。",
    "Excluded from the session.": "已在该会话中排除。", "Quarantine memory": "隔离记忆",
    "It will not be injected anywhere until you approve it again.": "在你再次批准之前，它不会被注入到任何地方。",
    "Quarantined; %1 session(s) had used it.": "已隔离；曾有 %1 个会话使用过它。", "Memory deleted.": "记忆已删除。",
    "Edit memory": "编辑记忆", "Change the wording. The old wording stays in the history.": "修改措辞。旧的措辞会保留在历史中。",
    "Memory text": "记忆文本", "Text": "文本", "The text is empty.": "文本为空。", "Time": "时间",
    "Session": "会话", "Actor": "发出者", "Trust": "可信度", "preference": "偏好", "fact": "事实",
    "convention": "约定", "decision": "决定", "skill suggestion": "技能建议", "Memory Center": "记忆中心",
    "Memory Center main window": "记忆中心主窗口", "Navigation": "导航", "Timeline": "时间线",
    "Review queue": "待审队列", "Sessions": "会话", "Settings": "设置", "Last action": "最近操作",
    "Undo": "撤销", "Undo last action": "撤销上一步操作", "Store status": "存储状态", "&File": "文件(&F)",
    "&Refresh": "刷新(&R)", "&Quit": "退出(&Q)", "&View": "视图(&V)", "&Undo": "撤销(&U)", "&Edit": "编辑(&E)",
    "revision %1  ·  %2 events  ·  key: %3": "修订 %1  ·  %2 个事件  ·  密钥：%3", "Give a reason.": "请填写原因。",
    "Quarantined: this came from a low-trust source (a web page, e-mail, issue or tool output) or was stopped in an incident. Such text can try to instruct the agent. Approve only if you checked the source and agree with it.": "已隔离：它来自低可信来源（网页、邮件、工单或工具输出），或在事件处置中被拦下。这类文本可能试图向智能体下指令。只有在你核实过来源并认可时才批准。",
    "Warning": "警告", "Suggested memory": "建议的记忆", "Policy reasons": "策略理由", "Evidence": "证据",
    "Why it is here": "为什么在这里", "Evidence (the memory's words are highlighted)": "证据（记忆中的词已高亮）",
    "proposed scope": "建议范围", "source": "来源", "confidence": "置信度",
    "redacted: sensitive parts were removed": "已脱敏：敏感部分已移除", "waits until": "等待至", "Loading…": "加载中…",
    "Suggested memories (%1)": "建议的记忆（%1）", "Conflicts (%1)": "冲突（%1）",
    "Quarantined — check before approving (%1)": "已隔离——批准前请核实（%1）",
    "Nothing to review. New suggestions from your agents appear here.": "没有待审内容。智能体的新建议会显示在这里。",
    "Approve  (A)": "批准  (A)", "Edit, then approve  (E)": "编辑后批准  (E)",
    "Change scope, then approve  (S)": "修改范围后批准  (S)", "Reject…  (R)": "拒绝…  (R)",
    "Keep this": "保留这条", "Keep this: %1": "保留这条：%1", "Conflicting memory": "冲突的记忆",
    "Approved.": "已批准。", "Edited and approved.": "已编辑并批准。", "Scope changed and approved.": "已修改范围并批准。",
    "Reject suggestion": "拒绝建议", "It stays in the ledger so it is not suggested again.": "它会留在候选账本中，不会再次被建议。",
    "Rejected.": "已拒绝。", "Conflict resolved.": "冲突已解决。", "Change scope": "修改范围",
    "Downgrade scope": "缩小范围", "Current scope: %1": "当前范围：%1",
    "Give the whole scope as key=value words.": "以 key=value 的形式填写完整范围。",
    "Add one key=value to narrow where this memory applies.": "添加一个 key=value，缩小这条记忆的适用范围。",
    "Scope key": "范围键", "Scope value": "范围值", "Whole scope": "完整范围", "Key": "键", "Value": "值",
    "Give a value for the new key.": "请为新键填写值。", "Exclude from a session": "在会话中排除",
    "The memory stays active elsewhere but is never injected into this session.": "记忆在其他地方仍然有效，但不会注入到这个会话。",
    "Choose a session.": "请选择会话。", "Events": "事件", "Last activity": "最近活动", "Memory": "记忆",
    "opted out": "已关闭", "on": "开启", "Events of the session": "会话事件",
    "Memory opt-out: inject nothing into this session and extract nothing from it": "关闭记忆：不向此会话注入任何记忆，也不从中提取",
    "Memory opt-out": "关闭记忆", "Model calls of the session": "会话的模型调用", "Model call": "模型调用",
    "No model call of this session recorded a snapshot.": "这个会话没有记录快照的模型调用。",
    "Memory is off for %1.": "%1 的记忆已关闭。", "Memory is on for %1.": "%1 的记忆已开启。",
    "Store": "存储", "Data directory": "数据目录", "Revision": "修订", "Schema version": "结构版本",
    "Contents": "内容", "Encryption key": "加密密钥", "Key held in": "密钥保存在", "Active key id": "当前密钥编号",
    "Key ids": "密钥编号", "Rotate key…": "轮换密钥…",
    "Re-encrypt every event, memory and snapshot under a new key. Can be stopped and resumed.": "用新密钥重新加密所有事件、记忆和快照。可以暂停后继续。",
    "Preferences": "偏好设置", "Language": "语言", "%1 events in %2 sessions": "%2 个会话中的 %1 个事件",
    "the operating system keyring": "操作系统钥匙串", "a passphrase-protected key file": "受口令保护的密钥文件",
    "Key rotated: %1 rows re-encrypted under %2.": "密钥已轮换：%1 行已用 %2 重新加密。",
    "The language changes the next time Memory Center starts.": "语言将在下次启动记忆中心时生效。",
    "store revision": "存储修订", "tokens": "词元", "degraded: memory was unavailable": "已降级：记忆暂不可用",
    "Injected": "已注入", "Dropped, and why": "未注入及原因", "suggested": "待审", "active": "生效",
    "expired": "已过期", "disabled": "已停用", "superseded": "已被取代", "quarantined": "已隔离",
    "rejected": "已拒绝", "deleted": "已删除", "Today": "今天", "Yesterday": "昨天", "never": "永不",
    "in %n hour(s)": "%n 小时后", "in %n day(s)": "%n 天后", "Status": "状态", "Content": "内容",
    "Source": "来源", "event": "事件", "Search memories…": "搜索记忆…", "Search": "搜索",
    "Status filter": "状态筛选", "All statuses": "全部状态", "Kind filter": "类型筛选", "All kinds": "全部类型",
    "Source trust filter": "来源筛选", "Any source": "任何来源", "Scope, e.g. project=web-shop": "范围，例如 project=web-shop",
    "Scope filter": "范围筛选", "Between": "日期范围", "From date": "开始日期", "To date": "结束日期",
    "Show events": "显示事件", "Show events in the timeline": "在时间线中显示事件",
    "Timeline of memories": "记忆时间线", "%n memories": "%n 条记忆", "user": "用户",
    "tool-verified": "工具验证", "assistant (inferred)": "助手（推断）", "untrusted": "不可信",
}


def fill() -> int:
    """Write the translations into the .ts file; return how many messages lack one."""
    tree = ET.parse(TS)
    missing = 0
    for message in tree.getroot().iter("message"):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        assert translation is not None
        text = ZH.get(source)
        if text is None:
            missing += 1
            continue
        translation.attrib.pop("type", None)
        if message.get("numerus") == "yes":
            translation.text = None
            for child in list(translation):
                translation.remove(child)
            ET.SubElement(translation, "numerusform").text = text
        else:
            translation.text = text
    tree.write(TS, encoding="utf-8", xml_declaration=True)
    return missing


if __name__ == "__main__":
    print(f"{fill()} message(s) without a translation")
