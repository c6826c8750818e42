<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en">
  <context>
    <name>AbComparisonDialog</name>
    <message numerus="yes">
      <source>%1 — %n recorded session(s)</source>
      <translation>
        <numerusform>%1 — %n recorded session</numerusform>
        <numerusform>%1 — %n recorded sessions</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>AgentsPanel</name>
    <message numerus="yes">
      <source>%1: installed for %n event(s)</source>
      <translation>
        <numerusform>%1: installed for %n event</numerusform>
        <numerusform>%1: installed for %n events</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n event(s) captured</source>
      <translation>
        <numerusform>%n event captured</numerusform>
        <numerusform>%n events captured</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n file(s) followed</source>
      <translation>
        <numerusform>%n file followed</numerusform>
        <numerusform>%n files followed</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>BackupPanel</name>
    <message numerus="yes">
      <source>%n memories exported to %2 (not encrypted).</source>
      <translation>
        <numerusform>%n memory exported to %2 (not encrypted).</numerusform>
        <numerusform>%n memories exported to %2 (not encrypted).</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>DeleteDialog</name>
    <message numerus="yes">
      <source>Also purge the %n source event(s) it came from</source>
      <translation>
        <numerusform>Also purge the %n source event it came from</numerusform>
        <numerusform>Also purge the %n source events it came from</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>• destroy the text of all %n revision(s);</source>
      <translation>
        <numerusform>• destroy the text of all %n revision;</numerusform>
        <numerusform>• destroy the text of all %n revisions;</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>• blank it out of the injected text of %n recorded model call(s);</source>
      <translation>
        <numerusform>• blank it out of the injected text of %n recorded model call;</numerusform>
        <numerusform>• blank it out of the injected text of %n recorded model calls;</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>Detail</name>
    <message numerus="yes">
      <source>Injected %n time(s); last used %2.</source>
      <translation>
        <numerusform>Injected %n time; last used %2.</numerusform>
        <numerusform>Injected %n times; last used %2.</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>DetailPanel</name>
    <message numerus="yes">
      <source>Quarantined; %n session(s) had used it.</source>
      <translation>
        <numerusform>Quarantined; %n session had used it.</numerusform>
        <numerusform>Quarantined; %n sessions had used it.</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message numerus="yes">
      <source>%n suggestion(s)</source>
      <translation>
        <numerusform>%n suggestion</numerusform>
        <numerusform>%n suggestions</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n conflict(s)</source>
      <translation>
        <numerusform>%n conflict</numerusform>
        <numerusform>%n conflicts</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n quarantined</source>
      <translation>
        <numerusform>%n quarantined</numerusform>
        <numerusform>%n quarantined</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n events recorded</source>
      <translation>
        <numerusform>%n events recorded</numerusform>
        <numerusform>%n events recorded</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>OfflineBadge</name>
    <message numerus="yes">
      <source>offline, %n change(s) waiting</source>
      <translation>
        <numerusform>offline, %n change waiting</numerusform>
        <numerusform>offline, %n changes waiting</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n change(s) waiting to be sent</source>
      <translation>
        <numerusform>%n change waiting to be sent</numerusform>
        <numerusform>%n changes waiting to be sent</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>Snapshot</name>
    <message numerus="yes">
      <source>Injected (%n)</source>
      <translation>
        <numerusform>Injected (%n)</numerusform>
        <numerusform>Injected (%n)</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>Dropped, and why (%n)</source>
      <translation>
        <numerusform>Dropped, and why (%n)</numerusform>
        <numerusform>Dropped, and why (%n)</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>TeamPanel</name>
    <message numerus="yes">
      <source>%n device(s)</source>
      <translation>
        <numerusform>%n device</numerusform>
        <numerusform>%n devices</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>Time</name>
    <message numerus="yes">
      <source>in %n hour(s)</source>
      <translation>
        <numerusform>in %n hour</numerusform>
        <numerusform>in %n hours</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>in %n day(s)</source>
      <translation>
        <numerusform>in %n day</numerusform>
        <numerusform>in %n days</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>TimelineView</name>
    <message numerus="yes">
      <source>%n ranked results</source>
      <translation>
        <numerusform>%n ranked result</numerusform>
        <numerusform>%n ranked results</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n memories</source>
      <translation>
        <numerusform>%n memory</numerusform>
        <numerusform>%n memories</numerusform>
      </translation>
    </message>
  </context>
</TS>